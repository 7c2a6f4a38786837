import { Cause, Clock, Context, Effect, Layer } from "effect"
import type { Envelope, EnvelopeError } from "../protocol/envelope.ts"
import { defaultRetryable } from "../protocol/error-code.ts"
import { buildExecutionMeta } from "../protocol/build-execution-meta.ts"
import type { ExecutionMeta, MetaTruncation } from "../protocol/execution-meta.ts"
import type { RetrievalHint } from "../protocol/hint.ts"
import { renderErrorText, renderResultText } from "../protocol/render.ts"
import { truncateObservation } from "../output/observation-truncator.ts"
import { OutputSettings } from "../output/output-settings.ts"
import { SpillStore } from "../output/spill-store.ts"
import { Permissions } from "../permission/permissions.ts"
import { Workspace } from "../workspace/workspace.ts"
import { AfterChange, withNote, writtenFiles } from "./after-change.ts"
import type { HookPermission, Tool, ToolResult } from "./definition.ts"
import { capText, checkInputLimits, ECHO_CHARS, echoValue } from "./input-limits.ts"
import { withFullOutput } from "./full-output.ts"
import { fallbackHints, fallbackStep } from "./fallback-hints.ts"
import { PLACEHOLDER, placeholderFor } from "./placeholder.ts"
import { acceptedNames, decodeParams } from "./params.ts"
import type { ToolRegistry } from "./registry.ts"
import { callParams } from "./claude-tools.ts"
import { ToolError } from "../protocol/tool-error.ts"
import { resolveTool } from "./pending-tool.ts"

/** One tool call as the model (or the CLI) makes it. */
export interface ToolCall {
  readonly name: string
  readonly params: unknown
  readonly callId?: string
}

/** What the pipeline hands back: the envelope the model's text comes from, and the meta stored beside it. */
export interface ToolOutcome {
  readonly envelope: Envelope
  readonly meta: ExecutionMeta
  /** The resolved tool, when the name was known. */
  readonly tool?: Tool
}

export interface RunOptions {
  /** Whether the caller's agent has a task tool (the truncation hint then names it). */
  readonly taskToolAvailable?: boolean
  /**
   * Completes when the user cancels (Ctrl-C, an aborted run). The tool is then
   * interrupted — its finalizers run, so child processes are ended — and the
   * call returns a CANCELLED envelope for the history.
   */
  readonly cancelled?: Effect.Effect<void>
}

/** Runs calls through the one pipeline every tool shares. */
export interface ToolRunnerShape {
  readonly registry: ToolRegistry
  readonly run: (call: ToolCall, options?: RunOptions) => Effect.Effect<ToolOutcome>
}

/** The services every tool may use; the runner provides them to `run`. */
export type ToolRunnerDeps = Workspace | Permissions | OutputSettings | SpillStore

export class ToolRunner extends Context.Service<ToolRunner, ToolRunnerShape>()("anvil/ToolRunner") {
  /**
   * The pipeline: resolve the name (Claude Code's names with their fields translated), decode the
   * parameters, ask permission, run with timing (a defect becomes
   * INTERNAL_ERROR, an interruption CANCELLED), build the envelope, render the
   * text, truncate and spill, derive execution_meta.
   *
   * `R` is what the registered tools need beyond the runner's own services; it
   * is captured when the layer is built and provided to every call.
   */
  static make = <R>(registry: ToolRegistry) =>
    Effect.gen(function* () {
      const services = yield* Effect.context<R | ToolRunnerDeps>()
      const workspace = Context.get(services as Context.Context<Workspace>, Workspace)
      const permissions = Context.get(services as Context.Context<Permissions>, Permissions)
      const settings = Context.get(services as Context.Context<OutputSettings>, OutputSettings)
      const store = Context.get(services as Context.Context<SpillStore>, SpillStore)
      const afterChange = Context.getOption(services as Context.Context<AfterChange>, AfterChange)
      const checkChanges = (result: ToolResult) => {
        const files = afterChange._tag === "Some" ? writtenFiles(result) : []
        return files.length === 0 || afterChange._tag === "None" ? Effect.succeed(undefined) : afterChange.value.check(files)
      }
      let counter = 0

      // Last line of defence: a defect anywhere in the pipeline (a tool's result that breaks rendering,
      // a throwing hook) is an INTERNAL_ERROR envelope for this call; the host goes on.
      const run = (call: ToolCall, options: RunOptions = {}): Effect.Effect<ToolOutcome> =>
        runCall(call, options).pipe(Effect.catchDefect((defect) => Effect.succeed(internalOutcome(call, defect))))

      const runCall = (call: ToolCall, options: RunOptions = {}): Effect.Effect<ToolOutcome> =>
        Effect.gen(function* () {
          const started = yield* Clock.currentTimeMillis
          const callId = call.callId ?? `tc_${++counter}`
          const elapsed = Effect.map(Clock.currentTimeMillis, (now) => Math.max(0, now - started))
          // A step of the call that the user's cancel (Ctrl-C, an aborted run) interrupts.
          const cancellable = <A, E, X>(step: Effect.Effect<A, E, X>): Effect.Effect<A, E, X> =>
            options.cancelled ? Effect.raceFirst(step, Effect.andThen(options.cancelled, Effect.interrupt)) : step
          const found = registry.lookup(call.name)
          const resolved = yield* resolveTool(registry, call.name, found, cancellable).pipe(Effect.exit)
          const tool = resolved._tag === "Success" ? resolved.value : found
          // params_input is recorded verbatim unless the tool masks secrets in it; the
          // spill file and execution history are built from this same context.
          const context = { cwd: workspace.cwdDisplay, params_input: recordedParams(tool, call.params ?? {}) }

          const fail = (title: string, error: ToolError, t: Tool | undefined) =>
            Effect.gen(function* () {
              const time_ms = yield* elapsed
              // A message over ECHO_CHARS is cut. INVALID_PARAM quotes the input: the rest is dropped; any
              // other message (a command's output) moves whole into the text, which the truncation layer bounds and spills.
              const long = error.message.length > ECHO_CHARS
              const details = long && error.code !== "INVALID_PARAM" ? [error.message, error.details].filter((d) => d !== undefined).join("\n\n") : error.details
              const envelopeError: EnvelopeError = {
                code: error.code,
                // A tool (a plugin's, a server's) that fails without a word still gets a message naming what failed.
                message: error.message.trim() === "" ? `${title} failed (${error.code}) without saying why.` : capText(error.message),
                // Field errors quote the input too (calculator: "unknown name '<the expression>'"): cut like the message.
                ...(error.fieldErrors && error.fieldErrors.length > 0
                  ? { field_errors: error.fieldErrors.map((f) => ({ field: capText(f.field, 200), message: capText(f.message) })) }
                  : {}),
                retryable: error.retryable ?? defaultRetryable(error.code),
              }
              // A next step said in words (no call helps) takes the place of the framework's guess.
              const hints =
                error.hints && error.hints.length > 0
                  ? error.hints
                  : error.nextStep !== undefined
                    ? []
                    : fallbackHints(title, t && acceptedNames(t), call.params, error, (f, v) => (t ? placeholderFor(t, f, v) : PLACEHOLDER))
              const envelope: Envelope = {
                status: "error",
                data: {},
                text: renderErrorText(title, envelopeError, hints, details, error.nextStep ?? (hints.length === 0 ? fallbackStep(error.code) : undefined)),
                error: envelopeError,
                stats: { time_ms },
                context: { ...context, ...error.context },
              }
              return yield* finish(title, callId, envelope, hints, undefined, undefined, options, t)
            })

          if (resolved._tag === "Failure") {
            const failure = resolved.cause.reasons.find(Cause.isFailReason)
            // The named tool exists (a stand-in whose server failed): its failure, not an unknown tool.
            if (failure) return yield* fail(found?.title ?? call.name, failure.error, found)
            if (!resolved.cause.reasons.some(Cause.isInterruptReason)) return yield* Effect.die(Cause.squash(resolved.cause))
            return yield* fail(call.name, new ToolError({ code: "CANCELLED", message: `The ${call.name} call was cancelled while its tool was being made ready.` }), undefined)
          }
          if (!tool) {
            // A tool this agent's profile leaves out (Write in plan mode) is refused with the reason, not called unknown.
            const refusal = registry.withheld?.(call.name)
            if (refusal !== undefined) {
              return yield* fail(call.name, new ToolError({ code: "PERMISSION_DENIED", message: refusal, retryable: false }), undefined)
            }
            // Loaded only for a name no tool has: a call that names a tool never evaluates it.
            const { unknownToolError } = yield* Effect.promise(() => import("./unknown-tool.ts"))
            return yield* fail(call.name, unknownToolError(call.name, registry.tools, call.params), undefined)
          }
          // A call under Claude Code's name with Claude's fields ("Read" with a 1-based offset) in anvil's parameters.
          const decoded = decodeParams(tool, callParams(call.name, tool.name, call.params))
          if (!decoded.ok) return yield* fail(tool.title, decoded.error, tool)

          // Hooks before the permission check, so the permission judges the parameters that will run.
          let params = decoded.value
          let hook: HookPermission | undefined
          if (tool.beforeCall) {
            // Cancellable like the run: a hook that takes its whole time limit (a command hook, up to a
            // minute) must not hold up Ctrl-C or SIGTERM.
            const before = yield* cancellable(Effect.suspend(() => tool.beforeCall!(params, { callId, rawParams: call.params }))).pipe(Effect.exit)
            if (before._tag === "Failure") {
              const failure = before.cause.reasons.find(Cause.isFailReason)
              if (failure && failure.error instanceof ToolError) return yield* fail(tool.title, failure.error, tool)
              if (before.cause.reasons.some(Cause.isInterruptReason)) {
                return yield* fail(tool.title, new ToolError({ code: "CANCELLED", message: `The ${tool.title} call was cancelled.` }), tool)
              }
              return yield* Effect.die(Cause.squash(before.cause))
            }
            params = before.value.params
            hook = before.value.permission
          }

          // Only a refusal stops the call here; anything else is left to `run`, which makes the same check again
          // and reports what went wrong through the pipeline's usual defect handling.
          const precheck = (checked: unknown) =>
            Effect.gen(function* () {
              if (!tool.precheck) return undefined
              const refused = yield* Effect.suspend(() => tool.precheck!(checked) as Effect.Effect<void, ToolError, R>).pipe(Effect.provideContext(services), Effect.exit)
              const failure = refused._tag === "Failure" ? refused.cause.reasons.find(Cause.isFailReason) : undefined
              return failure && failure.error instanceof ToolError ? failure.error : undefined
            })
          const refusal = yield* precheck(params)
          if (refusal) return yield* fail(tool.title, refusal, tool)
          // Cancellable: a turn interrupted while someone is being asked (a host's canUseTool) ends without the answer.
          const checked = yield* cancellable(permissions.check({ tool, params, callId, ...(hook ? { hook } : {}) })).pipe(Effect.exit)
          if (checked._tag === "Failure") {
            if (checked.cause.reasons.some(Cause.isInterruptReason)) {
              return yield* fail(tool.title, new ToolError({ code: "CANCELLED", message: `The ${tool.title} call was cancelled while its permission was being asked.` }), tool)
            }
            return yield* Effect.die(Cause.squash(checked.cause))
          }
          const decision = checked.value
          if (!decision.allowed) {
            // A deny rule's refusal names the rule (context.denied_by): the agent's final word then says to change it, not --yes.
            // An untrusted project rule that would have allowed it is named too (context.untrusted_rule), with the command that applies it.
            // A refusal no one gave (a scripted run's) says so (context.unattended): its way on is --yes or --allow.
            const unattended = decision.unattended ? { unattended: true } : {}
            const deniedBy = decision.rule
              ? { context: { denied_by: { rule: decision.rule.rule, where: decision.rule.where } } }
              : decision.untrusted
                ? { context: { untrusted_rule: { rule: decision.untrusted.rule, next_step: decision.untrusted.next_step }, ...unattended } }
                : decision.unattended
                  ? { context: unattended }
                  : {}
            return yield* fail(tool.title, new ToolError({ code: "PERMISSION_DENIED", message: decision.reason, ...deniedBy }), tool)
          }
          // Whoever approved the call may have changed its parameters (a host's updatedInput): they are decoded again.
          if (decision.params !== undefined) {
            const changed = decodeParams(tool, decision.params)
            if (!changed.ok) return yield* fail(tool.title, changed.error, tool)
            params = changed.value
          }
          // While someone decided, a protected file may have appeared or a link changed: the precheck looks again.
          if (decision.asked) {
            const late = yield* precheck(params)
            if (late) return yield* fail(tool.title, late, tool)
          }

          // suspend: a tool that throws instead of failing becomes INTERNAL_ERROR below, not a crash of the host.
          const running = Effect.suspend(
            () => tool.run(params, { callId, rawParams: call.params }) as Effect.Effect<ToolResult, ToolError, R>,
          )
          const exit = yield* cancellable(running).pipe(Effect.provideContext(services), Effect.exit)
          if (exit._tag === "Failure") {
            const failure = exit.cause.reasons.find(Cause.isFailReason)
            if (failure && failure.error instanceof ToolError) return yield* fail(tool.title, failure.error, tool)
            const interrupted = exit.cause.reasons.some(Cause.isInterruptReason) && !exit.cause.reasons.some(Cause.isDieReason)
            return yield* fail(
              tool.title,
              interrupted
                ? new ToolError({ code: "CANCELLED", message: `The ${tool.title} call was cancelled.` })
                : new ToolError({ code: "INTERNAL_ERROR", message: `${tool.title} failed unexpectedly: ${capText(defectMessage(exit.cause), 500)}` }),
              tool,
            )
          }
          const result: ToolResult = yield* withFullOutput(withNote(exit.value, yield* checkChanges(exit.value)), tool.title, store, workspace.display)
          const status = result.status ?? "success"
          const hints = result.hints ?? []
          const envelope: Envelope = {
            status,
            data: result.data,
            text: renderResultText(result.header ?? tool.title, result.text, status, hints),
            stats: { ...result.stats, time_ms: yield* elapsed },
            context: { ...context, ...result.context, ...(tool.paginates ? { truncation_skip: true } : {}) },
          }
          return yield* finish(tool.title, callId, envelope, hints, result.truncation, result.meta, options, tool)
        })

      const finish = (
        title: string,
        callId: string,
        envelope: Envelope,
        hints: ReadonlyArray<RetrievalHint>,
        own: ToolResult["truncation"],
        extra: ToolResult["meta"],
        options: RunOptions,
        tool: Tool | undefined,
      ) =>
        Effect.gen(function* () {
          const cut = yield* truncateObservation({
            envelope,
            toolTitle: title,
            settings,
            store,
            display: workspace.display,
            taskToolAvailable: options.taskToolAvailable ?? false,
            toolHints: hints,
          })
          const reasons = [own?.reason, cut.hints ? "output_spilled" : undefined].filter((r) => r !== undefined)
          const truncation: MetaTruncation | undefined =
            reasons.length === 0
              ? undefined
              : {
                  truncated: true,
                  reason: reasons.join(","),
                  ...(own?.shown_range ? { shown_range: own.shown_range } : {}),
                  total_estimate: own?.total_estimate ?? cut.kept?.total ?? 0,
                }
          const meta = buildExecutionMeta({
            toolTitle: title,
            callId,
            envelope: cut.envelope,
            hints: [...hints, ...(cut.hints ?? [])],
            truncation,
            extra,
          })
          return { envelope: cut.envelope, meta, ...(tool ? { tool } : {}) }
        })

      return { registry, run }
    })

  /** {@link ToolRunner.make} as a layer. */
  static layer = <R>(registry: ToolRegistry) => Layer.effect(ToolRunner, ToolRunner.make<R>(registry))
}

/**
 * The parameters as the envelope records them: through the tool's `redact`,
 * which must never break a call, and cut to a small echo (strings to their
 * first ECHO_CHARS characters). A value over the input limits is not shown.
 */
const recordedParams = (tool: Tool | undefined, raw: unknown): unknown => {
  const limit = checkInputLimits(raw)
  if (limit !== undefined && !limit.echoable) return "[not shown: the parameters are over anvil's input limits]"
  if (!tool?.redact) return echoValue(raw)
  try {
    return echoValue(tool.redact(raw))
  } catch {
    return "[REDACTED]"
  }
}

/** The envelope of a call whose pipeline itself failed (built from nothing that could fail again). */
const internalOutcome = (call: ToolCall, defect: unknown): ToolOutcome => {
  let detail: string
  try {
    detail = capText(defect instanceof Error ? defect.message : String(defect), 500)
  } catch {
    detail = "unknown defect"
  }
  const name = typeof call.name === "string" ? capText(call.name, 100) : "tool"
  const message = `The ${name} call failed unexpectedly: ${detail}`
  const error: EnvelopeError = { code: "INTERNAL_ERROR", message, retryable: false }
  return {
    envelope: {
      status: "error",
      data: {},
      // The shared layout (plain string joins, nothing that could fail again), Retryable line included.
      text: renderErrorText(name, error, [], "", fallbackStep(error.code)),
      error,
      stats: { time_ms: 0 },
      context: { cwd: ".", params_input: "[not shown]" },
    },
    meta: buildExecutionMeta({
      toolTitle: name,
      callId: call.callId ?? "tc_internal",
      envelope: { status: "error", data: {}, text: message, error, stats: { time_ms: 0 }, context: { cwd: ".", params_input: null } },
      hints: [],
      truncation: undefined,
      extra: undefined,
    }),
  }
}

const defectMessage = (cause: Cause.Cause<unknown>): string => {
  const die = cause.reasons.find(Cause.isDieReason)
  const defect = die?.defect ?? Cause.squash(cause)
  return defect instanceof Error ? defect.message : String(defect)
}
