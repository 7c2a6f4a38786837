/**
 * The hidden command the sandbox starts inside itself when the network goes through anvil's proxy.
 * Its own module: the relay itself (node:net) stays out of every session's start-up.
 */
export const RELAY_COMMAND = "__sandbox-relay"
