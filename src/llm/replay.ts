import { Effect, Stream } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { ModelError, type LanguageModelShape, type ModelEvent, type ModelToolCall } from "./model.ts"

/**
 * One scripted model turn: text, tool calls, or both. In a file, a turn may
 * also be a bare string (a text-only turn). Tool-call arguments may be given
 * as an object or as the JSON text a model would stream.
 */
export interface ReplayTurn {
  readonly text?: string
  readonly tool_calls?: ReadonlyArray<{ readonly name: string; readonly arguments?: unknown; readonly id?: string }>
  readonly usage?: { readonly input_tokens?: number; readonly output_tokens?: number }
}

/** Parses a replay script: a JSON array of turns, `{"turns": [...]}`, or JSON Lines (one turn a line). */
export const parseReplayScript = (text: string, source: string): ReadonlyArray<ReplayTurn> => {
  const trimmed = text.trim()
  const fail = (why: string): never => {
    throw new ModelError({ kind: "replay", retryable: false, message: `The replay script ${source} is not usable: ${why}` })
  }
  let turns: Array<unknown>
  if (trimmed.startsWith("[") || trimmed.startsWith("{\"turns\"") || /^\{\s*"turns"/.test(trimmed)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(trimmed)
    } catch (e) {
      return fail(`not valid JSON (${(e as Error).message})`)
    }
    turns = Array.isArray(parsed) ? parsed : Array.isArray((parsed as { turns?: unknown }).turns) ? ((parsed as { turns: Array<unknown> }).turns) : fail("expected an array of turns")
  } else {
    turns = trimmed
      .split("\n")
      .map((l, i) => [l.trim(), i + 1] as const)
      .filter(([l]) => l !== "" && !l.startsWith("//"))
      .map(([l, n]) => {
        try {
          return JSON.parse(l) as unknown
        } catch (e) {
          return fail(`line ${n} is not valid JSON (${(e as Error).message})`)
        }
      })
  }
  return turns.map((t, i) => {
    if (typeof t === "string") return { text: t }
    if (typeof t !== "object" || t === null) return fail(`turn ${i + 1} must be an object or a string`)
    const turn = t as ReplayTurn
    for (const c of turn.tool_calls ?? []) if (typeof c?.name !== "string") fail(`turn ${i + 1} has a tool call without a name`)
    return turn
  })
}

const chunks = (text: string, size = 24): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/**
 * A model that plays scripted turns in order, one per request, streaming the
 * text in small pieces like a server would: for demos, for reproducible
 * scripted runs, and for tests that need no server. `model` is the script's
 * path; `replay/<file>` selects it.
 */
export const makeReplay = (turns: ReadonlyArray<ReplayTurn>, source: string, contextWindow = 128_000): LanguageModelShape => {
  let next = 0
  return {
    id: `replay/${source}`,
    provider: "replay",
    model: source,
    contextWindow,
    stream: (request) =>
      Stream.suspend(() => {
        const index = next++
        const turn = turns[index]
        if (!turn) {
          return Stream.fail(
            new ModelError({
              kind: "replay",
              retryable: false,
              message: `The replay script ${source} has no turn ${index + 1} (it has ${turns.length}).`,
            }),
          )
        }
        const calls: Array<ModelToolCall> = (turn.tool_calls ?? []).map((c, i) => ({
          id: c.id ?? `call_${index + 1}_${i + 1}`,
          name: c.name,
          arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
        }))
        const bytes = new TextEncoder().encode(JSON.stringify(request)).length
        const events: Array<ModelEvent> = [
          { type: "request", bytes, attempt: 1 },
          { type: "raw", data: JSON.stringify(turn) },
          ...chunks(turn.text ?? "").map((text): ModelEvent => ({ type: "text_delta", text })),
          ...calls.flatMap((call, i): Array<ModelEvent> => [
            { type: "tool_call_start", index: i, id: call.id, name: call.name },
            { type: "tool_call_delta", index: i, argumentsDelta: call.arguments },
            { type: "tool_call_end", index: i, call },
          ]),
          {
            type: "usage",
            usage: {
              inputTokens: turn.usage?.input_tokens ?? Math.ceil(bytes / 4),
              outputTokens: turn.usage?.output_tokens ?? Math.ceil(((turn.text ?? "").length + calls.reduce((n, c) => n + c.arguments.length, 0)) / 4),
            },
          },
          { type: "finish", reason: calls.length > 0 ? "tool_calls" : "stop" },
        ]
        return Stream.fromIterable(events)
      }),
  }
}

/** Reads a replay script from disk. */
export const loadReplay = Effect.fn("loadReplay")(function* (file: string, display: string) {
  const fs = yield* FileSystem
  const text = yield* fs.readFileString(file).pipe(
    Effect.mapError(
      (e) => new ModelError({ kind: "config", retryable: false, message: `Could not read the replay script ${display}: ${e.message}` }),
    ),
  )
  const turns = yield* Effect.try({
    try: () => parseReplayScript(text, display),
    catch: (e) => (e instanceof ModelError ? e : new ModelError({ kind: "replay", retryable: false, message: String(e) })),
  })
  return makeReplay(turns, display)
})
