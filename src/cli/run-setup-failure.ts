import { parseAgentArgs } from "./agent-args.ts"
import { startFailureResult } from "./claude-result.ts"
import type { CliIO } from "./output.ts"

/**
 * `anvil run -f json|stream-json` that cannot start (a broken anvil.json, a --root that does not exist) still
 * prints its result: a program reading stdout gets the reason and the message, never nothing.
 * Nothing is printed for another command, or for arguments that do not parse (their usage error says why).
 */
export const printRunSetupFailure = (io: CliIO, command: string | undefined, rest: ReadonlyArray<string>, message: string, exitCode: number) => {
  if (command !== "run") return
  let args: ReturnType<typeof parseAgentArgs>
  try {
    args = parseAgentArgs(rest, "run")
  } catch {
    return
  }
  if (args.format !== "text") io.out(`${JSON.stringify(startFailureResult(message, exitCode, "config", args.sessionId))}\n`)
}
