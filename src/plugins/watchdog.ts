import type { FreezeMemory } from "./load-memory.ts"
import { WATCHDOG_WORKER_SOURCE } from "./watchdog-worker.ts"
import { WATCHDOG_IDENTITY } from "../process/watchdog-identity.ts"

/**
 * Plugin code runs in anvil's own thread, so a plugin that computes without
 * ever yielding (a synchronous `while (true) {}` at import, in `setup`, in a
 * hook or in a tool) stops every time limit, signal handler and output with
 * it. The watchdog is a second thread (watchdog-worker.ts) that sees each
 * plugin call anvil waits for and the main thread's heartbeat: when a call's
 * deadline passed while the main thread had not beaten since before it, for
 * {@link FREEZE_GRACE_MS} more, it writes the report (stderr; stdout as the
 * command set it: an envelope, a stream-json event), remembers a plugin that
 * froze while loading as a load time-out (load-memory.ts; when several were
 * loading, each as a suspect the next run loads alone), and ends the
 * process with {@link FROZEN_EXIT_CODE}, after KILLing anvil's child
 * processes and their groups (a plugin's own too; the marked processes that
 * left them are swept by the process watchdog, process/watchdog.ts, as after
 * a `kill -9`). It starts with the first plugin anvil loads
 * and beats only while a plugin call is watched: a command without plugins
 * never starts it.
 */

/** The exit code of a process the watchdog ended. */
export const FROZEN_EXIT_CODE = 8
/** How long past a call's deadline the main thread must have been stuck. */
export const FREEZE_GRACE_MS = 2000
/** Where a report template takes the message (see {@link setFreezeReport}). */
export const FREEZE_MESSAGE = "\u0000anvil-freeze-message\u0000"
/** Where a report template takes the time of the freeze (ISO 8601), which the watchdog knows only then. */
export const FREEZE_TIME = "\u0000anvil-freeze-time\u0000"

const BEAT_MS = 250

/** One plugin call anvil waits for. */
export interface PluginWatch {
  readonly plugin: string
  /** What of it runs: "loading", "setup", "hook tool.before", "tool x". */
  readonly what: string
  /** The setting that holds its time limit, for the report. */
  readonly setting: string
  readonly limitMs: number
  /** What the worker writes into the load memory if this call froze anvil, alone or among others. */
  readonly memory?: FreezeMemory | undefined
}

let worker: Worker | undefined
let shared: { beat: Float64Array; current: Int32Array } | undefined
/**
 * Standard output's part of a freeze report: `stdout` with {@link FREEZE_MESSAGE} where the message goes and
 * {@link FREEZE_TIME} where the time of the freeze does (`json`: both escaped as JSON).
 */
export interface FreezeReport {
  readonly stdout?: string
  readonly json?: boolean
}

let report: FreezeReport = {}
let nextId = 1
let watched = 0
let beating: ReturnType<typeof setInterval> | undefined

const beat = () => {
  shared!.beat[0] = Date.now()
}

const start = () => {
  if (worker) return
  const buffer = new SharedArrayBuffer(16)
  shared = { beat: new Float64Array(buffer, 0, 1), current: new Int32Array(buffer, 8, 1) }
  worker = new Worker(URL.createObjectURL(new Blob([WATCHDOG_WORKER_SOURCE], { type: "application/javascript" })))
  // The watchdog never keeps anvil running.
  worker.unref()
  worker.postMessage({ t: "init", buffer, spared: WATCHDOG_IDENTITY, placeholder: FREEZE_MESSAGE, timePlaceholder: FREEZE_TIME })
  worker.postMessage({ t: "report", ...report })
}

/** What the watchdog prints on standard output if a plugin freezes this command (an envelope, an event). */
export const setFreezeReport = (next: FreezeReport): void => {
  report = { ...next }
  worker?.postMessage({ t: "report", ...report })
}

/**
 * Watches one plugin call from now: `run` is its synchronous start (the
 * plugin's own code that runs before it first yields); the returned `stop`
 * ends the watch, once the call settled or anvil stopped waiting for it.
 */
export const watchPluginCall = <A>(watch: PluginWatch, run: () => A): { readonly value: A; readonly stop: () => void } => {
  start()
  const id = nextId++
  const now = Date.now()
  worker!.postMessage({ t: "add", id, label: `plugin '${watch.plugin}' (${watch.what})`, plugin: watch.plugin, setting: watch.setting, limitMs: watch.limitMs, since: now, deadline: now + watch.limitMs, memory: watch.memory })
  if (watched++ === 0) beating = setInterval(beat, BEAT_MS)
  ;(beating as { unref?: () => void }).unref?.()
  beat()
  let stopped = false
  const stop = () => {
    if (stopped) return
    stopped = true
    worker!.postMessage({ t: "del", id })
    if (--watched === 0) clearInterval(beating)
  }
  const outer = shared!.current[0]!
  shared!.current[0] = id
  try {
    return { value: run(), stop }
  } catch (e) {
    stop()
    throw e
  } finally {
    shared!.current[0] = outer
  }
}
