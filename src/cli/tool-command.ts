import { Effect } from "effect"
import { makeToolRuntime } from "../runtime.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { ToolRunner } from "../tool-framework/runner.ts"
import { flagValue, UsageError } from "./args.ts"
import type { CliIO } from "./output.ts"

export interface ToolCommandArgs {
  readonly name: string
  readonly params: unknown
  readonly text: boolean
  readonly meta: boolean
}

/** Parses `<name> [JSON | - | --key value ...] [--text] [--meta]`. */
export const parseToolArgs = async (rest: ReadonlyArray<string>, io: CliIO): Promise<ToolCommandArgs> => {
  const [name, ...args] = rest
  if (name === undefined || name.startsWith("--")) throw new UsageError("anvil tool: name a tool (see `anvil tools`)")
  let text = false
  let meta = false
  let params: Record<string, unknown> | undefined
  let positional: unknown
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === "--text") text = true
    else if (a === "--meta") meta = true
    else if (a === "--") continue
    else if (a.startsWith("--")) {
      const eq = a.indexOf("=")
      const key = eq > 0 ? a.slice(2, eq) : a.slice(2)
      const next = args[i + 1]
      const value = eq > 0 ? flagValue(a.slice(eq + 1)) : next !== undefined && !next.startsWith("--") ? flagValue(args[++i]!) : true
      params = { ...params, [key]: value }
    } else if (positional === undefined) {
      const source = a === "-" ? await io.readStdin() : a
      try {
        positional = JSON.parse(source)
      } catch (e) {
        throw new UsageError(`anvil tool ${name}: the parameters are not valid JSON (${(e as Error).message})`)
      }
    } else throw new UsageError(`anvil tool ${name}: unexpected argument '${a}'`)
  }
  if (positional !== undefined && params !== undefined) {
    if (typeof positional !== "object" || positional === null || Array.isArray(positional)) {
      throw new UsageError(`anvil tool ${name}: JSON parameters must be an object to combine with --key flags`)
    }
    return { name, params: { ...positional, ...params }, text, meta }
  }
  return { name, params: positional ?? params ?? {}, text, meta }
}

/** Runs one tool through the full pipeline and prints the envelope (or the model's text). */
export const toolCommand = async (
  args: ToolCommandArgs,
  tools: ReadonlyArray<Tool>,
  io: CliIO,
  root: string | undefined,
): Promise<number> => {
  const program = Effect.gen(function* () {
    const runner = yield* ToolRunner
    return yield* runner.run({ name: args.name, params: args.params })
  }).pipe(Effect.provide(makeToolRuntime({ cwd: io.cwd, env: io.env, root, tools, ...(io.terminal ? { terminal: io.terminal } : {}) })))
  const outcome = await Effect.runPromise(program)
  if (!outcome.tool) {
    io.err(`anvil tool: unknown tool '${args.name}' (see \`anvil tools\`)\n`)
    io.out(`${JSON.stringify(outcome.envelope, null, 2)}\n`)
    return 2
  }
  if (args.text) io.out(`${outcome.envelope.text}\n`)
  else if (args.meta) io.out(`${JSON.stringify({ envelope: outcome.envelope, execution_meta: outcome.meta }, null, 2)}\n`)
  else io.out(`${JSON.stringify(outcome.envelope, null, 2)}\n`)
  return outcome.envelope.status === "error" ? 1 : 0
}
