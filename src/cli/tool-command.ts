import { shownValue } from "../protocol/shown-value.ts"
import { Deferred, Effect } from "effect"
import type { Envelope, EnvelopeError } from "../protocol/envelope.ts"
import type { RetrievalHint } from "../protocol/hint.ts"
import { ToolError } from "../protocol/tool-error.ts"
import { renderErrorText } from "../protocol/render.ts"
import { makeToolContext, type RuntimeOptions } from "../runtime.ts"
import { Config, ConfigError, ConfigStrictError } from "../config/config.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { ToolSource } from "../tool-framework/registry.ts"
import { ToolRunner, type ToolOutcome } from "../tool-framework/runner.ts"
import { fallbackHints, fallbackStep } from "../tool-framework/fallback-hints.ts"
import { acceptedNames } from "../tool-framework/params.ts"
import { placeholderFor, WHOLE } from "../tool-framework/placeholder.ts"
import { watchSignals, type ExitSignal } from "./signals.ts"
import { commandLineProblem, withStringFlags, type CommandLineProblem, type ToolCommandArgs } from "./tool-args.ts"
import { printConfigWarnings } from "./config-warnings.ts"
import { ignoredSettingsNotice } from "../config/ignored.ts"
import type { CliIO } from "./output.ts"
import type { Project } from "./project.ts"

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
    const tool = runner.registry.lookup(args.name)
    // A command line that cannot be a call of this tool is a usage error; the tool does not run.
    const problem = tool && commandLineProblem(args, tool)
    if (problem) return { problem, tool }
    return yield* runner.run({ name: args.name, params: withStringFlags(args, tool) }, { cancelled: Deferred.await(cancel) })
  }).pipe((call) => Effect.flatMap(services, (context) => Effect.provideContext(call, context)), Effect.scoped)
  let result: ToolOutcome | ConfigStrictError | { problem: CommandLineProblem; tool: Tool }
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
  if ("problem" in result) {
    // Exit 2 as for any usage error, with the INVALID_PARAM envelope a script reading stdout expects.
    const { message, fieldErrors } = result.problem
    const { tool } = result
    const error = { code: "INVALID_PARAM", message: `Invalid parameters for ${tool.name}: ${message}`, field_errors: fieldErrors, retryable: false } as const
    // The next step a call with these faults would get from the pipeline: the parameters at fault, or the whole call.
    const fault = new ToolError({ code: "INVALID_PARAM", message, fieldErrors })
    const hints = fallbackHints(tool.title, acceptedNames(tool), args.params, fault, (f, v) => placeholderFor(tool, f, v))
    return usageFailure(io, args, `anvil tool ${args.name}: ${message}`, cliErrorEnvelope(tool.title, error, args.params, hints))
  }
  let outcome = result
  if (signals.signal !== undefined && outcome.envelope.error?.code === "CANCELLED") {
    outcome = { ...outcome, envelope: withSignal(outcome.envelope, signals.signal) }
  }
  if (!outcome.tool) {
    return usageFailure(io, args, `anvil tool: unknown tool ${shownValue(args.name)} (see \`anvil tools\`)`, outcome.envelope)
  }
  if (args.notObject && outcome.envelope.error?.field_errors?.some((f) => f.field === WHOLE)) {
    // Text the tool could not take as its one string parameter: the command line is wrong (exit 2), still with an envelope.
    // Text it took (calculator's expression) and then refused is the tool's own error, as the same text in an object is.
    return usageFailure(io, args, `anvil tool ${args.name}: the parameters are not a JSON object (see \`anvil tool ${args.name} --help\`)`, outcome.envelope)
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
  const step = "name a tool of a configured server (anvil mcp list shows them), or define the server first."
  return usageFailure(io, args, `anvil tool: ${message}`, cliErrorEnvelope(args.name, error, null, [], step))
}

/** A call the command line got wrong: the line on stderr, the envelope (or its text) on stdout, exit 2 as for any usage error. */
const usageFailure = (io: CliIO, args: ToolCommandArgs, line: string, envelope: Envelope): number => {
  io.err(`${line}\n`)
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
const cliErrorEnvelope = (
  name: string,
  error: EnvelopeError,
  paramsInput: unknown = null,
  hints: ReadonlyArray<RetrievalHint> = [],
  nextStep = hints.length === 0 ? fallbackStep(error.code) : undefined,
): Envelope => ({
  status: "error",
  data: {},
  text: renderErrorText(name, error, hints, "", nextStep),
  error,
  stats: { time_ms: 0 },
  context: { cwd: ".", params_input: paramsInput },
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
