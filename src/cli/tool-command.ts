import { Deferred, Effect } from "effect"
import type { Envelope, EnvelopeError } from "../protocol/envelope.ts"
import { renderErrorText } from "../protocol/render.ts"
import { makeToolContext, type RuntimeOptions } from "../runtime.ts"
import { Config, ConfigError, ConfigStrictError } from "../config/config.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { ToolSource } from "../tool-framework/registry.ts"
import { ToolRunner, type ToolOutcome } from "../tool-framework/runner.ts"
import { watchSignals, type ExitSignal } from "./signals.ts"
import { flagValue, UsageError } from "./args.ts"
import { printConfigWarnings } from "./config-warnings.ts"
import { ignoredSettingsNotice } from "../config/ignored.ts"
import { stdinWaitMs, type CliIO } from "./output.ts"
import type { Project } from "./project.ts"
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
  /** The parameters given were not JSON (passed on as text: a one-string tool takes it, others answer INVALID_PARAM). */
  readonly notJson?: boolean
  /** `--trust-plugins`: the project's untrusted plugins load for this call. */
  readonly trustPlugins?: boolean
  /** `--trust-mcp`: the project's untrusted MCP server starts for this call. */
  readonly trustMcp?: boolean
  /** The text of each `--key value` flag, kept for the tool's string parameters (see withStringFlags). */
  readonly flagTexts?: Readonly<Record<string, string>>
}

/** The value of the `--sandbox` flag at `i` (`--sandbox MODE` or `--sandbox=MODE`); "" when none follows. */
const sandboxValue = (args: ReadonlyArray<string>, i: number): string => (args[i] === "--sandbox" ? (args[i + 1] ?? "") : args[i]!.slice("--sandbox=".length))

/**
 * `anvil tool NAME -`: the parameters from standard input. A pipe whose writer left it open and silent is a usage
 * error after the first-byte wait instead of a hang; a terminal is read to Ctrl-D.
 */
const paramsFromStdin = async (io: CliIO, name: string): Promise<string> => {
  const waitMs = stdinWaitMs(io.env)
  const piped = io.readPipedStdin ? await io.readPipedStdin(waitMs) : undefined
  if (piped === "silent") {
    throw new UsageError(
      `anvil tool ${name}: nothing arrived on standard input within ${waitMs / 1000} s (its writer left it open and silent); ` +
        `give the parameters as an argument, or set ANVIL_STDIN_WAIT=SECONDS for a producer slow to start`,
    )
  }
  const text = piped ?? (await io.readStdin())
  // Nothing at all is a mistake in the call (a closed or empty pipe), not parameters for the tool to refuse.
  if (text.trim() === "") {
    throw new UsageError(`anvil tool ${name}: standard input was empty; pipe the JSON parameters (echo '{…}' | anvil tool ${name} -) or give them as an argument`)
  }
  return text
}

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
  let notJson = false
  let trust: { trustPlugins?: true; trustMcp?: true } = {}
  const flagTexts: Record<string, string> = {}
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
        throw new UsageError(`anvil tool: --sandbox is ${MODE_WORDS.join(", ")} (or true/false, bash's own sandbox parameter), not '${given}'`)
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
      params = { ...params, [key]: raw === undefined ? true : flagValue(raw) }
    } else if (positional === undefined) {
      const source = a === "-" ? await paramsFromStdin(io, name) : a
      try {
        positional = JSON.parse(source)
      } catch {
        // Not JSON: the tool pipeline decides (a one-string tool takes it as its parameter, else an INVALID_PARAM envelope).
        positional = source
        notJson = true
      }
    } else throw new UsageError(`anvil tool ${name}: unexpected argument '${a}'`)
  }
  if (positional !== undefined && params !== undefined) {
    if (typeof positional !== "object" || positional === null || Array.isArray(positional)) {
      throw new UsageError(`anvil tool ${name}: JSON parameters must be an object to combine with --key flags`)
    }
    return { name, params: { ...positional, ...params }, text, meta, ...(sandbox ? { sandbox } : {}), ...trust, flagTexts }
  }
  return { name, params: positional ?? params ?? {}, text, meta, ...(sandbox ? { sandbox } : {}), ...(notJson ? { notJson } : {}), ...trust, flagTexts }
}

/**
 * The call's parameters with each `--key value` flag read as the tool's schema wants it: a flag's text is
 * parsed as JSON (numbers, booleans, lists), except for a string parameter, which keeps the text as typed
 * (`--new_string true`, `--content 007`, `--pattern 42` are strings).
 */
export const withStringFlags = (args: ToolCommandArgs, tools: ReadonlyArray<Tool>): unknown => {
  const texts = Object.entries(args.flagTexts ?? {})
  const params = args.params
  if (texts.length === 0 || typeof params !== "object" || params === null || Array.isArray(params)) return params
  const wanted = args.name.trim().toLowerCase()
  const tool = tools.find((t) => [t.name, t.title, ...(t.aliases ?? [])].some((n) => n.toLowerCase() === wanted))
  const ast = tool?.parameters.ast
  if (ast?._tag !== "Objects") return params
  const out: Record<string, unknown> = { ...(params as Record<string, unknown>) }
  for (const [key, text] of texts) {
    const field = ast.propertySignatures.find((p) => p.name === (tool!.parameterAliases?.[key] ?? key))
    if (field?.type._tag === "String") out[key] = text
  }
  return out
}

/** Runs one tool through the full pipeline and prints the envelope (or the model's text). */
export const toolCommand = async (
  args: ToolCommandArgs,
  tools: ReadonlyArray<Tool>,
  io: CliIO,
  root: string | undefined,
  /** Completes the tools once the root and configuration are known (plugins); see RuntimeOptions.prepareTools. */
  prepareTools?: RuntimeOptions["prepareTools"],
  /** Tools found while the call runs (an MCP server's, connected for this call). */
  toolSources?: ReadonlyArray<ToolSource>,
  strict = false,
  /**
   * The root and configuration, when the caller has read them (to look for plugins). Without plugins or
   * tool sources, the runtime then builds only the services the tools declare (see Tool.requires).
   */
  project?: Project,
): Promise<number> => {
  // SIGINT, SIGTERM, SIGHUP cancel the call: its processes are ended and the envelope says CANCELLED.
  const cancel = Effect.runSync(Deferred.make<void>())
  const signals = watchSignals(
    () => Effect.runSync(Deferred.succeed(cancel, undefined)),
    (signal) => io.out(`${JSON.stringify(cancelledEnvelope(args.name, signal), null, 2)}\n`),
  )
  // Printed once: before a setting that stops the call (a bad sandbox value) is reported, the warnings still show.
  let warned = false
  const notices: Array<string> = []
  // The services are made into one context and provided directly: a layer around them would only add its own build.
  const services = makeToolContext({
    cwd: io.cwd,
    env: io.env,
    root: project?.root ?? root,
    ...(project ? { config: project.config, services: "used" as const } : {}),
    tools,
    retention: "on-spill",
    ...(prepareTools ? { prepareTools } : {}),
    ...(toolSources ? { toolSources } : {}),
    ...(io.terminal ? { terminal: io.terminal } : {}),
    sandbox: { ...(args.sandbox ? { modeFlag: args.sandbox } : {}), onProjectIgnored: (notice) => notices.push(notice) },
  })
  const program = Effect.gen(function* () {
    const { warnings, ignored } = yield* Config
    printConfigWarnings(io, warnings)
    // The project's settings left out for want of trust, said as `anvil run` says it (stdout carries the envelope).
    for (const notice of [...notices, ignoredSettingsNotice(ignored)]) if (notice) io.err(`anvil: warning: ${notice}\n`)
    warned = true
    if (strict && warnings.length > 0) return new ConfigStrictError({ count: warnings.length })
    const runner = yield* ToolRunner
    return yield* runner.run({ name: args.name, params: withStringFlags(args, tools) }, { cancelled: Deferred.await(cancel) })
  }).pipe((call) => Effect.flatMap(services, (context) => Effect.provideContext(call, context)), Effect.scoped)
  let result: ToolOutcome | ConfigStrictError
  try {
    result = await Effect.runPromise(program)
  } catch (e) {
    // A broken configuration is the command's own error (exit 3, reported by the CLI), not the call's.
    if (e instanceof ConfigError || (e as { cause?: unknown })?.cause instanceof ConfigError) {
      if (!warned && project) printConfigWarnings(io, project.config.warnings)
      throw e
    }
    // A defect that escaped the pipeline still ends in an envelope (the pipeline turns a tool's own throws into one).
    io.out(`${JSON.stringify(internalEnvelope(args.name, e), null, 2)}\n`)
    return signals.exitCode ?? 1
  } finally {
    signals.dispose()
  }
  if (result instanceof ConfigStrictError) {
    io.err(`anvil tool: ${result.message}\n`)
    return 2
  }
  let outcome = result
  if (signals.signal !== undefined && outcome.envelope.error?.code === "CANCELLED") {
    outcome = { ...outcome, envelope: withSignal(outcome.envelope, signals.signal) }
  }
  if (!outcome.tool) {
    io.err(`anvil tool: unknown tool '${args.name}' (see \`anvil tools\`)\n`)
    io.out(`${JSON.stringify(outcome.envelope, null, 2)}\n`)
    return 2
  }
  if (args.notJson && outcome.envelope.error?.code === "INVALID_PARAM") {
    // A malformed command line still answers with an envelope (stdout) and exits 2 (usage).
    io.err(`anvil tool ${args.name}: the parameters are not a JSON object (see \`anvil tools --json\`)\n`)
    io.out(`${JSON.stringify(outcome.envelope, null, 2)}\n`)
    return 2
  }
  if (args.text) io.out(`${outcome.envelope.text}\n`)
  else {
    let json: string
    try {
      json = JSON.stringify(args.meta ? { envelope: outcome.envelope, execution_meta: outcome.meta } : outcome.envelope, null, 2)
    } catch (e) {
      // A result JSON cannot hold (a cycle, a BigInt) is that call's INTERNAL_ERROR, not a crash of the command.
      outcome = { ...outcome, envelope: internalEnvelope(args.name, e) }
      json = JSON.stringify(outcome.envelope, null, 2)
    }
    io.out(`${json}\n`)
  }
  return signals.exitCode ?? (outcome.envelope.status === "error" ? 1 : 0)
}

/**
 * Answers a call the command line can already tell is wrong (an MCP server nobody configured): an
 * INVALID_PARAM envelope on `name`, printed as the pipeline's would be, and exit 2 as for an unknown tool.
 */
export const printUnknownName = (args: ToolCommandArgs, io: CliIO, message: string): number => {
  const error = { code: "INVALID_PARAM", message, field_errors: [{ field: "name", message: "unknown tool" }], retryable: false } as const
  const envelope = cliErrorEnvelope(args.name, error)
  io.err(`anvil tool: ${message}\n`)
  io.out(args.text ? `${envelope.text}\n` : `${JSON.stringify(envelope, null, 2)}\n`)
  return 2
}

/**
 * What `anvil tool` prints if a plugin freezes the call (plugins/watchdog.ts writes it, with the message where
 * `message` stands): the TIMEOUT envelope, or its text with --text.
 */
export const frozenCallReport = (args: ToolCommandArgs, message: string): { stdout: string; json: boolean } => {
  const envelope = cliErrorEnvelope(args.name, { code: "TIMEOUT", message, retryable: false })
  return args.text ? { stdout: `${envelope.text}\n`, json: false } : { stdout: `${JSON.stringify(envelope, null, 2)}\n`, json: true }
}

/** The INTERNAL_ERROR envelope of a defect found after the pipeline. */
const internalEnvelope = (name: string, e: unknown): Envelope => {
  const message = `${name} failed unexpectedly: ${(e instanceof Error ? e.message : String(e)).slice(0, 2000)}`
  return cliErrorEnvelope(name, { code: "INTERNAL_ERROR", message, retryable: false })
}

/** An error envelope the command line makes itself (no call ran), laid out as the pipeline's are. */
const cliErrorEnvelope = (name: string, error: EnvelopeError): Envelope => ({
  status: "error",
  data: {},
  text: renderErrorText(name, error, []),
  error,
  stats: { time_ms: 0 },
  context: { cwd: ".", params_input: null },
})

const signalNote = (signal: ExitSignal) => `anvil received ${signal}; every process the call started was ended.`

/** The CANCELLED envelope of a call cut short by a signal, naming the signal. */
const withSignal = (envelope: Envelope, signal: ExitSignal): Envelope => {
  const message = envelope.error ? `${envelope.error.message} ${signalNote(signal)}` : signalNote(signal)
  return {
    ...envelope,
    text: envelope.error ? envelope.text.replace(envelope.error.message, message) : envelope.text,
    ...(envelope.error ? { error: { ...envelope.error, message } } : {}),
  }
}

/** Written when the call did not finish in time after a second signal. */
const cancelledEnvelope = (name: string, signal: ExitSignal): Envelope =>
  cliErrorEnvelope(name, { code: "CANCELLED", message: `The ${name} call was cancelled. ${signalNote(signal)}`, retryable: false })
