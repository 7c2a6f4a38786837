import { Effect, Predicate } from "effect"
import { Config } from "../config/config.ts"
import { ToolError } from "../protocol/tool-error.ts"
import type { Tool, ToolResult } from "../tool-framework/definition.ts"
import { schemaModuleOf } from "../tool-framework/params.ts"
import type { Hooks } from "./api.ts"
import { isRecord } from "../protocol/is-record.ts"
import { breakerOpened, hookBreaker } from "./hook-breaker.ts"
import { asJson } from "./plain-json.ts"
import { settled } from "./plugin-value.ts"
import { isTimedOut, withTimeLimit } from "./time-limit.ts"

/**
 * Runs the plugins' hooks: in the order they were added (user plugins, then
 * project plugins, each alphabetically), each with a time limit. A hook that
 * throws, rejects, fails, times out or answers something its hook does not
 * take is reported through `onProblem` and skipped; the call it was hooked
 * into goes on.
 */

export type HookName = keyof Hooks

/** One plugin's hook. */
export interface HookEntry<K extends HookName = HookName> {
  readonly plugin: string
  readonly name: K
  readonly fn: NonNullable<Hooks[K]>
  /** This entry's own time limit (a host program's hook may wait for a person); default: the runner's. */
  readonly timeoutMs?: number
  /** Who reports and refusals name (`skill 'deploy'`); default `plugin '<plugin>'`. */
  readonly owner?: string
}

/** How reports and refusals name an entry's owner. */
const ownerOf = (entry: Pick<HookEntry, "plugin" | "owner">) => entry.owner ?? `plugin '${entry.plugin}'`

export interface HookRunner {
  /** The entries in force now (with scoped ones, read again at each call). */
  readonly entries: ReadonlyArray<HookEntry>
  /** The time limit of an entry without its own. */
  readonly timeoutMs: number
  readonly has: (name: HookName) => boolean
  /** Calls one entry; undefined when it failed (reported). */
  readonly callEntry: (entry: HookEntry, event: unknown) => Promise<unknown>
  /**
   * Calls every hook of `name` in order; yields each answer that came back
   * (undefined answers included) with its plugin. Problems are reported, not returned.
   */
  readonly call: <K extends HookName>(
    name: K,
    event: Parameters<NonNullable<Hooks[K]>>[0],
  ) => Promise<Array<{ readonly plugin: string; readonly value: unknown }>>
}

const describe = (e: unknown) => (e instanceof Error ? e.message : typeof e === "string" ? e : JSON.stringify(e) ?? String(e))

/** What each hook may answer, as words for the report, and the check (nothing is always a valid answer). */
const ANSWERS: Partial<Record<HookName, { readonly says: string; readonly ok: (v: unknown) => boolean }>> = {
  "tool.before": {
    says: "{params}, {deny: \"reason\"}, {permission: \"allow\" | \"ask\", reason?}, {stop: \"reason\"} or nothing",
    ok: (v) =>
      isRecord(v) &&
      Object.keys(v).every((k) => ["params", "deny", "permission", "reason", "stop"].includes(k)) &&
      (v.deny === undefined || typeof v.deny === "string") &&
      (v.stop === undefined || typeof v.stop === "string") &&
      (v.params === undefined || isRecord(v.params)) &&
      (v.permission === undefined || v.permission === "allow" || v.permission === "ask"),
  },
  "tool.after": {
    says: "{text?, data?, stop?} or nothing",
    ok: (v) =>
      isRecord(v) &&
      Object.keys(v).every((k) => k === "text" || k === "data" || k === "stop") &&
      (v.text === undefined || typeof v.text === "string") &&
      (v.stop === undefined || typeof v.stop === "string"),
  },
  "permission.ask": { says: '"allow", "deny", "ask" or nothing', ok: (v) => v === "allow" || v === "deny" || v === "ask" },
  "shell.env": { says: "an object of variables or nothing", ok: isRecord },
  "prompt.system": { says: "a text or nothing", ok: (v) => typeof v === "string" },
}

/** Why an answer is not one its hook may give (a typo such as `{denied: …}` would otherwise do nothing, silently). */
const answerProblem = (name: HookName, value: unknown): string | undefined => {
  const rule = ANSWERS[name]
  if (value === undefined || value === null || !rule || rule.ok(value)) return undefined
  const shown = JSON.stringify(value) ?? String(value)
  return `answered ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}, which is not ${rule.says}`
}

/** Calls one hook with its time limit, watched (watchdog.ts); a returned Effect is run. */
const callOne = (entry: HookEntry, event: unknown, timeoutMs: number): Promise<unknown> => {
  const work = async () => {
    const value = await settled((entry.fn as (event: unknown) => unknown)(event))
    return Effect.isEffect(value) ? await Effect.runPromise(value as Effect.Effect<unknown, unknown, never>) : value
  }
  const setting = entry.timeoutMs === undefined ? "plugins.hook_timeout_ms" : "the hook's own timeout"
  return withTimeLimit(work, timeoutMs, `timed out after ${timeoutMs} ms`, { plugin: entry.plugin, what: `hook ${entry.name}`, setting })
}

export const hookRunner = (
  fixed: ReadonlyArray<HookEntry>,
  options: {
    readonly timeoutMs: number
    readonly onProblem: (message: string) => void
    /**
     * Entries that come and go while the session runs (a skill's front-matter hooks, added when it is invoked), after
     * the fixed ones. With them, every tool is wrapped for `tool.before` and `tool.after`, since they may come later.
     */
    readonly scoped?: () => ReadonlyArray<HookEntry>
  },
): HookRunner => {
  const scoped = options.scoped
  const current = (): ReadonlyArray<HookEntry> => (scoped ? [...fixed, ...scoped()] : fixed)
  // A hook that keeps timing out is skipped without waiting for a while (hook-breaker.ts).
  const breaker = hookBreaker<HookEntry>()
  const callEntry = async (entry: HookEntry, event: unknown): Promise<unknown> => {
    if (!breaker.allows(entry)) return undefined
    let value: unknown
    try {
      value = await callOne(entry, event, entry.timeoutMs ?? options.timeoutMs)
      breaker.record(entry, false)
    } catch (e) {
      options.onProblem(`${ownerOf(entry)}: hook ${entry.name} failed and was skipped: ${describe(e)}`)
      if (breaker.record(entry, isTimedOut(e))) options.onProblem(`${ownerOf(entry)}: hook ${entry.name} ${breakerOpened()}`)
      return undefined
    }
    const problem = answerProblem(entry.name, value)
    if (problem === undefined) return value
    options.onProblem(`${ownerOf(entry)}: hook ${entry.name} ${problem}; ignored`)
    return undefined
  }
  return {
    get entries() {
      return current()
    },
    timeoutMs: options.timeoutMs,
    has: (name) => (scoped !== undefined && (name === "tool.before" || name === "tool.after")) || current().some((e) => e.name === name),
    callEntry,
    call: async (name, event) => {
      const answers: Array<{ plugin: string; value: unknown }> = []
      for (const entry of current()) if (entry.name === name) answers.push({ plugin: entry.plugin, value: await callEntry(entry, event) })
      return answers
    },
  }
}

/** A call a `tool.before` hook's `stop` kept from running: CANCELLED, the reason only in `context.hook_stopped`. */
const hookStopError = (title: string, entry: HookEntry, hook: string, reason: string) =>
  new ToolError({
    code: "CANCELLED",
    message: `The ${title} call was not run: ${ownerOf(entry)} ended the turn.`,
    retryable: false,
    context: { hook_stopped: { plugin: entry.plugin, hook, reason } },
  })

/**
 * A tool with the plugins' hooks: `tool.before` before its permission check
 * (answers in order: new parameters, decoded again with the tool's schema —
 * an invalid change is reported and ignored — or a denial: PERMISSION_DENIED
 * with the reason, the later hooks not called), `shell.env` (bash) and
 * `tool.after` around its run.
 */
export const withHooks = (tool: Tool, hooks: HookRunner, onProblem: (message: string) => void): Tool => {
  const before = hooks.has("tool.before")
  const after = hooks.has("tool.after")
  const env = tool.name === "bash" && hooks.has("shell.env")
  if (!before && !after && !env) return tool
  const own = tool.beforeCall
  // Before the permission check (see Tool.beforeCall): the permission judges the parameters the hooks settled on.
  const beforeCall: Tool["beforeCall"] = (params, call) =>
    Effect.gen(function* () {
      const first = own ? yield* own(params, call) : { params }
      let current = first.params
      // The strictest word of the hooks: "ask" over "allow".
      let permission = first.permission
      for (const entry of hooks.entries) {
        if (entry.name !== "tool.before") continue
        const value = yield* Effect.promise(() => hooks.callEntry(entry, { tool: tool.name, params: current, callId: call.callId }))
        if (!Predicate.isObject(value)) continue
        // `stop` ends the turn: the call does not run; the reason is the person's, so the model's text leaves it out.
        if (typeof value.stop === "string") return yield* hookStopError(tool.title, entry, "tool.before", value.stop)
        if (typeof value.deny === "string") {
          // context.blocked_by: the agent's final word names the plugin, not a person who declined or a --yes that would not help.
          return yield* new ToolError({
            code: "PERMISSION_DENIED",
            message: `Blocked by ${ownerOf(entry)}: ${value.deny}`,
            retryable: false,
            context: { blocked_by: { plugin: entry.plugin, hook: "tool.before" } },
          })
        }
        if (Predicate.isObject(value.params)) {
          const decoded = schemaModuleOf(tool).decodeUnknownExit(tool.parameters)(value.params)
          if (decoded._tag === "Success") current = decoded.value
          else onProblem(`${ownerOf(entry)}: tool.before returned parameters ${tool.name} does not accept; ignored`)
        }
        if ((value.permission === "allow" || value.permission === "ask") && permission?.decision !== "ask") {
          const reason = typeof value.reason === "string" && value.reason.trim() !== "" ? value.reason : undefined
          permission = { decision: value.permission, reason: `${ownerOf(entry)}${reason ? `: ${reason}` : ""}` }
        }
      }
      return { params: current, ...(permission ? { permission } : {}) }
    })
  return {
    ...tool,
    ...(before ? { beforeCall } : {}),
    run: (params, call) =>
      Effect.gen(function* () {
        let run = tool.run(params, call)
        if (env) {
          const answers = yield* Effect.promise(() => hooks.call("shell.env", { command: String((params as { command?: unknown }).command ?? "") }))
          const extra: Record<string, string> = {}
          for (const a of answers) {
            if (!Predicate.isObject(a.value)) continue
            for (const [k, v] of Object.entries(a.value)) {
              // A name with '=' or NUL, or a value with NUL, would make every command fail to start.
              if (typeof v === "string" && /^[^=\0]+$/.test(k) && !v.includes("\0")) extra[k] = v
              else onProblem(`plugin '${a.plugin}': shell.env variable ${JSON.stringify(k).slice(0, 100)} is not a valid name with a text value; ignored`)
            }
          }
          if (Object.keys(extra).length > 0) {
            const config = yield* Config
            run = run.pipe(Effect.provideService(Config, { ...config, env: { ...config.env, ...extra } }))
          }
        }
        let result: ToolResult = yield* run
        if (after) {
          const answers = yield* Effect.promise(() =>
            hooks.call("tool.after", {
              tool: tool.name,
              params,
              callId: call.callId,
              result: { status: result.status ?? "success", text: result.text, data: result.data },
            }),
          )
          for (const a of answers) {
            if (!Predicate.isObject(a.value)) continue
            const data = a.value.data === undefined ? undefined : asJson(a.value.data)
            if (data !== undefined && !(data.ok && Predicate.isObject(data.value))) {
              onProblem(`plugin '${a.plugin}': tool.after returned data that is not a JSON object${data.ok ? "" : ` (${data.message})`}; ignored`)
              continue
            }
            if (typeof a.value.text === "string") result = { ...result, text: a.value.text }
            if (data?.ok && Predicate.isObject(data.value)) result = { ...result, data: data.value }
            // The first `stop` is the one the turn ends with; the result stands.
            if (typeof a.value.stop === "string" && result.context?.hook_stopped === undefined) {
              result = { ...result, context: { ...result.context, hook_stopped: { plugin: a.plugin, hook: "tool.after", reason: a.value.stop } } }
            }
          }
        }
        return result
      }),
  }
}

