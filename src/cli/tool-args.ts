import { shownValue } from "../protocol/shown-value.ts"
import type { SchemaAST } from "effect"
import type { FieldError } from "../protocol/envelope.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { flagValue, UsageError } from "./args.ts"
import { stdinWaitMs, type CliIO } from "./output.ts"
import { SANDBOX_MODES } from "../sandbox/settings.ts"

/** What `--sandbox` takes on `anvil tool` (true/false go to bash's own `sandbox` parameter). */
const MODE_WORDS: ReadonlyArray<string> = [...SANDBOX_MODES, "require"]

export interface ToolCommandArgs {
  readonly name: string
  readonly params: unknown
  readonly text: boolean
  readonly meta: boolean
  /** `--sandbox MODE` (a mode name; `--sandbox false` is bash's own parameter). */
  readonly sandbox?: string
  /**
   * The parameters given whole were not a JSON object (text that is not JSON, a JSON string, array, number,
   * boolean or null): a one-string tool takes a string as its parameter; anything else is a usage error.
   */
  readonly notObject?: boolean
  /** `--trust-plugins`: the project's untrusted plugins load for this call. */
  readonly trustPlugins?: boolean
  /** `--trust-mcp`: the project's untrusted MCP server starts for this call. */
  readonly trustMcp?: boolean
  /** The text of each `--key value` flag, kept for the tool's string parameters (see withStringFlags). */
  readonly flagTexts?: Readonly<Record<string, string>>
  /** `--key` flags given without a value (true for a boolean parameter, a usage error for any other). */
  readonly bareFlags?: ReadonlyArray<string>
  /**
   * What the command line got wrong that no tool could take (a second JSON argument, JSON that is no object
   * beside `--key` flags): answered as the other usage errors of a call are, with an INVALID_PARAM envelope.
   */
  readonly lineProblem?: CommandLineProblem
}

/** The value of the `--sandbox` flag at `i` (`--sandbox MODE` or `--sandbox=MODE`); "" when none follows. */
const sandboxValue = (args: ReadonlyArray<string>, i: number): string => (args[i] === "--sandbox" ? (args[i + 1] ?? "") : args[i]!.slice("--sandbox=".length))

/**
 * `anvil tool NAME -`: the parameters from standard input, or what is wrong with it. A pipe whose writer left it
 * open and silent is a usage error after the first-byte wait instead of a hang; a terminal is read to Ctrl-D.
 * Both mistakes are answered as the command line's other ones are: exit 2 with the INVALID_PARAM envelope.
 */
const paramsFromStdin = async (io: CliIO, name: string): Promise<string | CommandLineProblem> => {
  const waitMs = stdinWaitMs(io.env)
  const piped = io.readPipedStdin ? await io.readPipedStdin(waitMs) : undefined
  if (piped === "silent") {
    return {
      message:
        `nothing arrived on standard input within ${waitMs / 1000} s (its writer left it open and silent); ` +
        `give the parameters as an argument, or set ANVIL_STDIN_WAIT=SECONDS for a producer slow to start`,
      fieldErrors: [{ field: "(root)", message: "no parameters arrived on standard input" }],
    }
  }
  const text = piped ?? (await io.readStdin())
  // Nothing at all is a mistake in the call (a closed or empty pipe), not parameters for the tool to refuse.
  if (text.trim() === "") {
    return {
      message: `standard input was empty; pipe the JSON parameters (echo '{…}' | anvil tool ${name} -) or give them as an argument`,
      fieldErrors: [{ field: "(root)", message: "standard input was empty" }],
    }
  }
  return text
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * Parses `<name> [JSON | - | --key value ...] [--text] [--meta] [--sandbox MODE] [--trust-plugins] [--trust-mcp]`.
 * Any other `--key` is a tool parameter.
 */
export const parseToolArgs = async (rest: ReadonlyArray<string>, io: CliIO): Promise<ToolCommandArgs> => {
  const [name, ...args] = rest
  if (name === undefined || name.startsWith("--")) throw new UsageError("anvil tool: name a tool (see `anvil tools`)")
  let text = false
  let meta = false
  let sandbox: string | undefined
  let params: Record<string, unknown> | undefined
  let positional: unknown
  let trust: { trustPlugins?: true; trustMcp?: true } = {}
  const flagTexts: Record<string, string> = {}
  const bareFlags: Array<string> = []
  let lineProblem: CommandLineProblem | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === "--text") text = true
    else if (a === "--meta") meta = true
    else if (a === "--") continue
    else if (a === "--trust-plugins") trust = { ...trust, trustPlugins: true }
    else if (a === "--trust-mcp") trust = { ...trust, trustMcp: true }
    else if ((a === "--sandbox" || a.startsWith("--sandbox=")) && !["true", "false"].includes(sandboxValue(args, i))) {
      const given = sandboxValue(args, i)
      if (!MODE_WORDS.includes(given)) {
        throw new UsageError(`anvil tool: --sandbox is ${MODE_WORDS.join(", ")} (or true/false, bash's own sandbox parameter), not ${shownValue(given)}`)
      }
      sandbox = given
      if (a === "--sandbox") i++
    }
    else if (a.startsWith("--")) {
      const eq = a.indexOf("=")
      const key = eq > 0 ? a.slice(2, eq) : a.slice(2)
      const next = args[i + 1]
      const raw = eq > 0 ? a.slice(eq + 1) : next !== undefined && !next.startsWith("--") ? args[++i]! : undefined
      if (raw !== undefined) flagTexts[key] = raw
      else bareFlags.push(key)
      params = { ...params, [key]: raw === undefined ? true : flagValue(raw) }
    } else if (positional === undefined) {
      const source = a === "-" ? await paramsFromStdin(io, name) : a
      if (typeof source !== "string") {
        lineProblem ??= source
        positional = {}
        continue
      }
      try {
        positional = JSON.parse(source)
      } catch {
        // Not JSON: the tool pipeline decides (a one-string tool takes it as its parameter, else INVALID_PARAM).
        positional = source
      }
    } else {
      lineProblem ??= {
        message: `unexpected argument ${shownValue(a)}: give the parameters as one JSON object or as --key value flags (see \`anvil tool ${name} --help\`)`,
        fieldErrors: [{ field: "(root)", message: "unexpected argument" }],
      }
    }
  }
  const common = {
    name, text, meta, ...(sandbox ? { sandbox } : {}), ...trust, flagTexts, ...(bareFlags.length > 0 ? { bareFlags } : {}), ...(lineProblem ? { lineProblem } : {}),
  }
  if (positional !== undefined && params !== undefined) {
    if (isObject(positional)) return { ...common, params: { ...positional, ...params } }
    const problem = lineProblem ?? {
      message: `JSON parameters beside --key flags must be an object such as '{"name": value}', not ${kindOf(positional)} (see \`anvil tool ${name} --help\`)`,
      fieldErrors: [{ field: "(root)", message: `expected an object, got ${kindOf(positional)}` }],
    }
    return { ...common, params, lineProblem: problem }
  }
  const notObject = positional !== undefined && !isObject(positional)
  return { ...common, params: notObject ? positional : (positional ?? params ?? {}), ...(notObject ? { notObject } : {}) }
}

/** The schema of `tool`'s top-level parameter `key` (or of the one it is an alias of), when the tool has one. */
const fieldType = (tool: Tool, key: string): SchemaAST.AST | undefined => {
  const ast = tool.parameters.ast
  if (ast._tag !== "Objects") return undefined
  return ast.propertySignatures.find((p) => p.name === (tool.parameterAliases?.[key] ?? key))?.type
}

const takesBoolean = (ast: SchemaAST.AST): boolean =>
  ast._tag === "Boolean" || (ast._tag === "Literal" && typeof ast.literal === "boolean") || (ast._tag === "Union" && ast.types.some(takesBoolean))

/**
 * The call's parameters with each `--key value` flag read as the tool's schema wants it: a flag's text is
 * parsed as JSON (numbers, booleans, lists), except for a string parameter, which keeps the text as typed
 * (`--new_string true`, `--content 007`, `--pattern 42` are strings).
 */
export const withStringFlags = (args: ToolCommandArgs, tool: Tool | undefined): unknown => {
  const texts = Object.entries(args.flagTexts ?? {})
  const params = args.params
  if (texts.length === 0 || tool === undefined || !isObject(params)) return params
  const out: Record<string, unknown> = { ...params }
  for (const [key, text] of texts) if (fieldType(tool, key)?._tag === "String") out[key] = text
  return out
}

/** Why the command line cannot be a call of `tool` at all (exit 2, before the tool runs). */
export interface CommandLineProblem {
  readonly message: string
  readonly fieldErrors: ReadonlyArray<FieldError>
}

const kindOf = (v: unknown): string => (Array.isArray(v) ? "an array" : v === null ? "null" : `a ${typeof v}`)

/**
 * What is wrong with the command line as a call of `tool`, if anything: what parsing it found (a second JSON
 * argument, JSON that is no object beside `--key` flags), parameters given whole that are no
 * object (an array, number, boolean or null; a string goes on to the tool, which takes it when it has one
 * string parameter), or a flag without a value for a parameter that is not a boolean (`--path` at the end, or
 * followed by another `--flag`), which would otherwise reach the tool as `true`.
 */
export const commandLineProblem = (args: ToolCommandArgs, tool: Tool): CommandLineProblem | undefined => {
  if (args.lineProblem) return args.lineProblem
  if (args.notObject && typeof args.params !== "string") {
    return {
      message: `the parameters must be a JSON object such as '{"name": value}', not ${kindOf(args.params)} (see \`anvil tool ${args.name} --help\`)`,
      fieldErrors: [{ field: "(root)", message: `expected an object, got ${kindOf(args.params)}` }],
    }
  }
  const valueless = (args.bareFlags ?? []).filter((key) => {
    const type = fieldType(tool, key)
    return type !== undefined && !takesBoolean(type)
  })
  if (valueless.length === 0) return undefined
  const key = valueless[0]!
  return {
    message:
      `--${key} needs a value: --${key} VALUE, or --${key}=VALUE for a value that starts with -- ` +
      `(see \`anvil tool ${args.name} --help\`)`,
    fieldErrors: valueless.map((k) => ({ field: tool.parameterAliases?.[k] ?? k, message: "given on the command line without a value" })),
  }
}
