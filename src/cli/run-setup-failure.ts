import { parseAgentArgs } from "./agent-args.ts"
import type { UsageKind } from "./args.ts"
import { startFailureResult } from "./claude-result.ts"
import type { CliIO } from "./output.ts"

/**
 * The output format a run's command line asks for, read leniently: when the line does not parse (that is the error
 * being reported), the last `-f`/`--format`/`--output-format` value that names a format still counts, wherever it is.
 */
const requestedFormat = (rest: ReadonlyArray<string>): string => {
  try {
    return parseAgentArgs(rest, "run").format
  } catch {
    let format = "text"
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i]!
      if (arg === "--") break
      const eq = arg.indexOf("=")
      const flag = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg
      if (flag !== "-f" && flag !== "--format" && flag !== "--output-format") continue
      const value = eq > 0 && arg.startsWith("--") ? arg.slice(eq + 1) : rest[++i]
      if (value === "json" || value === "stream-json" || value === "text") format = value
    }
    return format
  }
}

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

/**
 * A run whose command line is wrong, asked for json or stream-json (before or after the mistake), gets its result
 * on stdout too: `reason: "usage"`, `usage_error` saying what kind (unknown_option, missing_value, bad_value,
 * conflicting_options), the message and the next step, with exit code 2, as a script cannot read stderr's prose.
 */
export const printRunUsageFailure = (io: CliIO, rest: ReadonlyArray<string>, message: string, kind: UsageKind, exitCode: number) => {
  if (requestedFormat(rest) === "text") return
  const nextStep = "Fix the command line and run it again; 'anvil run --help' lists the options and the values each takes."
  io.out(`${JSON.stringify({ ...startFailureResult(message, exitCode, "usage"), usage_error: kind, next_step: nextStep })}\n`)
}
