import { type Cause, Context, Effect, Layer, type Queue, type Scope } from "effect"
import type * as Readline from "node:readline"

/** One key press. */
export interface TerminalKey {
  /** The key's name as readline reports it: "return", "escape", "backspace", "a", "1" … ("" when unnamed). */
  readonly name: string
  /** The text the key produced ("" for control keys). */
  readonly text: string
  readonly ctrl: boolean
}

/**
 * The person at the terminal, for tools that ask them something (question).
 * Injected so a tool never touches process.stdin, and so the no-terminal case
 * and scripted key presses can stand in for a real one.
 */
export interface UserTerminalShape {
  /** Whether someone can answer: keyboard input and the prompt's output are both a TTY. */
  readonly interactive: boolean
  /** Shows prompt text (stderr in the CLI, so stdout stays machine-readable). */
  readonly write: (text: string) => Effect.Effect<void>
  /** Key presses while the scope is open (raw mode on for a real TTY); the queue ends when input ends. */
  readonly keys: Effect.Effect<Queue.Dequeue<TerminalKey, Cause.Done>, never, Scope.Scope>
}

interface InputStream extends NodeJS.ReadableStream {
  readonly isTTY?: boolean
  setRawMode?: (mode: boolean) => unknown
}
interface OutputStream {
  readonly isTTY?: boolean
  write: (text: string) => unknown
}

/**
 * effect's Queue module, imported when key presses are first asked for: this file loads with every command, and
 * most never ask a person anything.
 */
const queues = Effect.promise(() => import("effect/Queue"))

const endedQueue = Effect.gen(function* () {
  const Queue = yield* queues
  const queue = yield* Queue.make<TerminalKey, Cause.Done>()
  Queue.endUnsafe(queue)
  return queue as Queue.Dequeue<TerminalKey, Cause.Done>
})

/** Splits typed text into key presses: "\r" is Enter, "\x1b" Esc, "\x7f" Backspace, "\x03" Ctrl+C, "\x04" Ctrl+D. */
export const keysOf = (typed: string): ReadonlyArray<TerminalKey> =>
  [...typed].map((ch) => {
    if (ch === "\r" || ch === "\n") return { name: "return", text: "", ctrl: false }
    if (ch === "\x1b") return { name: "escape", text: "", ctrl: false }
    if (ch === "\x7f" || ch === "\b") return { name: "backspace", text: "", ctrl: false }
    if (ch === "\x03") return { name: "c", text: "", ctrl: true }
    if (ch === "\x04") return { name: "d", text: "", ctrl: true }
    return { name: /^[a-z0-9]$/i.test(ch) ? ch.toLowerCase() : "", text: ch, ctrl: false }
  })

export class UserTerminal extends Context.Service<UserTerminal, UserTerminalShape>()("anvil/UserTerminal") {
  /** No one to ask: scripted runs, pipes, CI. */
  static nobody: UserTerminalShape = { interactive: false, write: () => Effect.void, keys: endedQueue }
  static none = Layer.succeed(UserTerminal, UserTerminal.nobody)

  /** Pre-recorded key presses, with everything written collected in `output` (tests, replays). */
  static scripted = (keys: ReadonlyArray<TerminalKey> | string, output: Array<string> = []) =>
    Layer.succeed(UserTerminal, {
      interactive: true,
      write: (text) => Effect.sync(() => void output.push(text)),
      keys: Effect.gen(function* () {
        const Queue = yield* queues
        const queue = yield* Queue.make<TerminalKey, Cause.Done>()
        for (const key of typeof keys === "string" ? keysOf(keys) : keys) Queue.offerUnsafe(queue, key)
        Queue.endUnsafe(queue)
        return queue as Queue.Dequeue<TerminalKey, Cause.Done>
      }),
    })

  /**
   * A real terminal: keys from `input` in raw mode, prompts to `output`.
   * Interactive only when both are TTYs; otherwise the same as {@link none}.
   */
  static fromStreams = (input: InputStream, output: OutputStream) =>
    input.isTTY !== true || output.isTTY !== true
      ? UserTerminal.none
      : Layer.succeed(UserTerminal, {
          interactive: true,
          write: (text) => Effect.sync(() => void output.write(text)),
          keys: Effect.gen(function* () {
            const Queue = yield* queues
            const queue = yield* Queue.make<TerminalKey, Cause.Done>()
            // Loaded here: node:readline is only needed once a person is asked something.
            const readline = require("node:readline") as typeof Readline
            const rl = readline.createInterface({ input, escapeCodeTimeout: 50 })
            readline.emitKeypressEvents(input, rl)
            const onKey = (text: string | undefined, key: Readline.Key | undefined) => {
              Queue.offerUnsafe(queue, { name: key?.name ?? "", text: key?.ctrl || key?.meta ? "" : (text ?? ""), ctrl: key?.ctrl === true })
            }
            const onEnd = () => Queue.endUnsafe(queue)
            input.on("keypress", onKey)
            input.once("end", onEnd)
            input.setRawMode?.(true)
            input.resume()
            yield* Effect.addFinalizer(() =>
              Effect.sync(() => {
                input.off("keypress", onKey)
                input.off("end", onEnd)
                input.setRawMode?.(false)
                rl.close()
                input.pause()
              }),
            )
            return queue as Queue.Dequeue<TerminalKey, Cause.Done>
          }),
        })
}
