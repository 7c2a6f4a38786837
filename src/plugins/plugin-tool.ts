import { Cause, Context, Effect, Exit, Predicate } from "effect"
import { DEFAULT_CALL_TIMEOUT_MS } from "../config/sections/plugins.ts"
import type { ErrorCode } from "../protocol/error-code.ts"
import { ToolError } from "../protocol/tool-error.ts"
import type { SchemaModule, Tool, ToolResult } from "../tool-framework/definition.ts"
import { pluginEffectModule } from "./plugin-effect.ts"
import { DEFAULT_MAX_FILE_BYTES } from "../config/sections/tools.ts"
import { commitText, openTarget } from "../edit/target-file.ts"
import { FileLedger } from "../workspace/file-ledger.ts"
import { Workspace } from "../workspace/workspace.ts"
import { CurrentCall, Files, ToolFailure, type PluginFiles, type ToolContext, type ToolDefinition } from "./api.ts"
import { pluginErrorCode, readPluginResult } from "./plugin-result.ts"
import { settled } from "./plugin-value.ts"
import { watchPluginCall } from "./watchdog.ts"
import type { EditError } from "../edit/edit-error.ts"
import { withEditErrors } from "../tools/edit-errors.ts"
import type { WorkspaceError } from "../workspace/workspace-error.ts"

/**
 * A plugin's tool as a registry tool: the same pipeline as a built-in one
 * (decoding, permission — "ask" unless readOnly —, envelope, truncation and
 * spill, execution_meta). `run` may return a value, a Promise or an Effect;
 * a {@link ToolFailure} becomes an error envelope of its code, any other throw
 * or rejection a defect the pipeline reports as INTERNAL_ERROR.
 */

/** The Schema module plugins are given (undefined before the first plugin loaded). */
const pluginSchema = (): SchemaModule | undefined => pluginEffectModule("Schema") as SchemaModule | undefined

/** Progress messages kept per call (the latest ones). */
const MAX_PROGRESS = 20

const failureCode = (code: unknown): ErrorCode => pluginErrorCode(code) ?? "EXECUTION_ERROR"

/** A plugin's throw with the plugin named, so the INTERNAL_ERROR the pipeline makes of it says whose bug it is. */
const inPlugin = (e: unknown, plugin: string): unknown => {
  const message = e instanceof Error ? e.message : Predicate.isObject(e) && typeof e.message === "string" ? e.message : String(e)
  return new Error(`${message} (a bug in plugin '${plugin}')`)
}

/** A thrown value as the pipeline sees it: ToolFailure → ToolError, anything else stays a defect. */
const isToolFailure = (e: unknown): e is ToolFailure =>
  e instanceof ToolFailure || (Predicate.isObject(e) && e._tag === "ToolFailure" && typeof e.message === "string")

/**
 * The Files of one call: the same checked opens and transactional writes as
 * the built-in read and write (the opened file's real place checked against
 * the root, temp file and rename under a lock). Failures are thrown as
 * ToolFailure, so the plugin may catch them or let them end the call.
 */
const makeFiles = (services: Context.Context<Workspace | FileLedger>): PluginFiles => {
  const run = <A>(effect: Effect.Effect<A, ToolError | EditError | WorkspaceError, Workspace | FileLedger>): Promise<A> =>
    Effect.runPromiseExit(Effect.provideContext(withEditErrors(effect), services)).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      const fail = exit.cause.reasons.find(Cause.isFailReason)?.error
      if (fail instanceof ToolError) throw new ToolFailure({ code: failureCode(fail.code) as ToolFailure["code"], message: fail.message })
      throw Cause.squash(exit.cause)
    })
  const target = (path: string, readOnly = false) =>
    openTarget(path, { maxBytes: DEFAULT_MAX_FILE_BYTES, limitKey: "tools.write.max_file_bytes", ...(readOnly ? { readOnly } : {}) })
  const resolve = (path: string) =>
    Effect.gen(function* () {
      const workspace = yield* Workspace
      return yield* workspace.resolve(path, "path")
    })
  return {
    resolve: (path) => run(Effect.map(resolve(path), (r) => r.absolute)),
    exists: (path) => run(resolve(path).pipe(Effect.map((r) => r.exists), Effect.orElseSucceed(() => false))),
    read: (path) =>
      run(
        Effect.gen(function* () {
          const file = yield* target(path, true)
          if (!file.existing) return yield* new ToolError({ code: "NOT_FOUND", message: `${file.display} does not exist` })
          return file.existing.decoded.text
        }),
      ),
    write: (path, content) =>
      run(
        Effect.gen(function* () {
          const file = yield* target(path)
          const format = file.existing?.decoded.format ?? { encoding: "utf-8" as const, bom: false }
          yield* commitText({ target: file, text: content, format, dryRun: false, maxDiffLines: 1 })
        }),
      ),
  }
}

/** Adapts one plugin tool; `options` is `plugins.options.<plugin>`. */
export const adaptPluginTool = (
  def: ToolDefinition,
  plugin: {
    readonly name: string
    readonly options: Readonly<Record<string, unknown>>
    /** How long one call may run (`plugins.call_timeout_ms`); past it the call is cancelled: `signal` aborts, TIMEOUT. */
    readonly timeoutMs?: number
  },
): Tool => ({
  name: def.name,
  title: def.title ?? def.name,
  description: def.description,
  parameters: def.parameters,
  // Decoded with the Schema module the plugin made them with (plugin-effect.ts).
  ...(pluginSchema() ? { schemaModule: pluginSchema() } : {}),
  permission: def.readOnly === true ? "allow" : "ask",
  readOnly: def.readOnly === true,
  run: (params, call) =>
    Effect.gen(function* () {
      const services = yield* Effect.context<Workspace | FileLedger>()
      const workspace = Context.get(services, Workspace)
      const progress: Array<string> = []
      const limitMs = plugin.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
      // Watched from its start until it settles or is cancelled: a run that never yields the thread ends anvil (watchdog.ts).
      let unwatch = () => {}
      const watch = { plugin: plugin.name, what: `tool ${def.name}`, setting: "plugins.call_timeout_ms", limitMs }
      const runPlugin = async (signal: AbortSignal) => {
        const files = makeFiles(services)
        const ctx: ToolContext = {
          root: workspace.root,
          cwd: workspace.cwd,
          callId: call.callId,
          signal,
          progress: (message) => {
            progress.push(String(message))
            if (progress.length > MAX_PROGRESS) progress.shift()
          },
          files,
          options: plugin.options,
        }
        const value = await settled(def.run(params, ctx))
        if (Effect.isEffect(value)) {
          const exit = await Effect.runPromiseExit(
            (value as Effect.Effect<unknown, unknown, Files | CurrentCall>).pipe(
              Effect.provideService(Files, files),
              Effect.provideService(CurrentCall, ctx),
            ),
            { signal },
          )
          if (Exit.isSuccess(exit)) return exit.value
          const fail = exit.cause.reasons.find(Cause.isFailReason)
          throw fail ? fail.error : Cause.squash(exit.cause)
        }
        return value
      }
      const outcome = yield* Effect.tryPromise({
        try: (signal) => {
          const { value, stop } = watchPluginCall(watch, () => runPlugin(signal))
          unwatch = stop
          return value.finally(stop)
        },
        catch: (e) => e,
      }).pipe(
        Effect.catch((e) =>
          isToolFailure(e)
            ? Effect.fail(new ToolError({ code: failureCode(e.code), message: `${def.name}: ${e.message}` }))
            : Effect.die(inPlugin(e, plugin.name)),
        ),
        // A run that never settles would hold the session forever: past the limit it is interrupted,
        // which aborts ctx.signal for the plugin to stop its work.
        Effect.timeoutOrElse({
          duration: limitMs,
          orElse: () =>
            Effect.fail(
              new ToolError({
                code: "TIMEOUT",
                message: `${def.name} (plugin '${plugin.name}') did not finish within ${limitMs} ms and was cancelled ("plugins.call_timeout_ms" in anvil.json).`,
                retryable: true,
              }),
            ),
        }),
        Effect.ensuring(Effect.sync(() => unwatch())),
      )
      const read = readPluginResult(outcome)
      if (read._tag === "invalid") {
        return yield* new ToolError({
          code: "INVALID_RESULT",
          message:
            `${def.name} (plugin '${plugin.name}') answered outside the tool result contract: ${read.reason.replace(/\.$/, "")}. ` +
            `This is a bug in the plugin, not in the call: retrying will not help. Its author should return a string, {text, data?, status?: "success" | "partial"}, or throw ToolFailure for an error.`,
        })
      }
      if (read._tag === "error") {
        return yield* new ToolError({ code: read.code, message: `${def.name}: ${read.message}`, ...(read.retryable !== undefined ? { retryable: read.retryable } : {}) })
      }
      return { ...read.result, ...(progress.length > 0 ? { meta: { progress } } : {}) } satisfies ToolResult
    }),
})
