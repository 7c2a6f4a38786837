/**
 * The hidden command the sandbox starts inside itself when the network goes through anvil's proxy.
 * Its own module: the relay itself (node:net) stays out of every session's start-up.
 */
export const RELAY_COMMAND = "__sandbox-relay"

/**
 * The hidden command the sandbox starts inside itself when it shares the machine's network: it takes the
 * command out of reach of abstract Unix sockets bound outside (Landlock), then becomes the command.
 */
export const SCOPE_COMMAND = "__sandbox-scope"
