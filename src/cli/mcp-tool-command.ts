import type { CliIO } from "./output.ts"
import { openCliHub, progressLine } from "./mcp-command.ts"
import { toolCommand, type ToolCommandArgs } from "./tool-command.ts"

/**
 * `anvil tool mcp__<server>__<tool> …`: starts only that server, runs the call
 * through the usual pipeline (Ctrl-C cancels it, and the SDK sends the server
 * the protocol's cancel), then ends the server. Progress goes to stderr.
 */
export const mcpToolCommand = async (args: ToolCommandArgs, io: CliIO, root: string | undefined): Promise<number> => {
  const hub = await openCliHub(io, root, (e) => {
    if (e.type === "progress") io.err(progressLine(e))
  }, args.trustMcp === true)
  try {
    return await toolCommand(args, [], io, root, undefined, [hub.toolSource])
  } finally {
    await hub.dispose()
  }
}
