import { Effect, Stream } from "effect"
import { ModelError, type LanguageModelShape, type ModelEvent } from "./model.ts"

/**
 * `--fallback-model` (the Agent SDK's `fallbackModel`), as Claude Code does it: when the model is overloaded (HTTP
 * 529 or 503, an `overloaded_error` in its stream) three times in a row, or unavailable (HTTP 404: no such model
 * there), the request goes to the next fallback model, which answers the rest of the turn. Rate limits (429) and
 * other failures are only retried. A new turn starts with the first model again, so an outage does not demote the
 * session for good.
 */

/** Overloaded answers to one model before its request goes to the fallback (Claude Code's MAX_529_RETRIES). */
export const OVERLOADED_TRIES = 3

/** A fallback model, set up only when the turn needs it (an unusable one fails the request with the reason). */
export interface FallbackTarget {
  readonly id: string
  readonly make: Effect.Effect<LanguageModelShape, ModelError>
}

const unavailable = (error: ModelError) => error.status === 404

/** Events that show part of the answer: after one, the answer is this model's and no other may take over. */
const isAnswer = (event: ModelEvent): boolean => !["raw", "request", "usage", "retry", "fallback"].includes(event.type)

/** `primary`, falling back along `chain` for the turn this model is made for (make one per turn). */
export const withFallback = (primary: LanguageModelShape, chain: ReadonlyArray<FallbackTarget>): LanguageModelShape => {
  // The model answering now: once a fallback took over, the turn's later requests go to it directly.
  let current = primary
  let next = 0
  const attempt = (model: LanguageModelShape, request: Parameters<LanguageModelShape["stream"]>[0]): Stream.Stream<ModelEvent, ModelError> =>
    Stream.suspend(() => {
      let answered = false
      let overloaded = 0
      return model.stream(request).pipe(
        // The third overloaded answer ends this model's tries: its retry (and the wait before it) never comes.
        Stream.mapEffect((event) => {
          answered ||= isAnswer(event)
          if (event.type === "retry" && event.error.overloaded && ++overloaded >= OVERLOADED_TRIES && next < chain.length) return Effect.fail(event.error)
          return Effect.succeed(event)
        }),
        Stream.catch((error: ModelError) => {
          if (answered || next >= chain.length || !(error.overloaded || unavailable(error))) return Stream.fail(error)
          const target = chain[next++]!
          const from = model.id
          return Stream.unwrap(
            target.make.pipe(
              Effect.mapError(
                (e) => new ModelError({ kind: e.kind, retryable: false, message: `${error.message} The fallback model ${target.id} cannot be used: ${e.message}` }),
              ),
              Effect.map((fallback) => {
                current = fallback
                return Stream.concat(Stream.make<Array<ModelEvent>>({ type: "fallback", from, to: fallback.id, error }), attempt(fallback, request))
              }),
            ),
          )
        }),
      )
    })
  return {
    get id() {
      return current.id
    },
    get provider() {
      return current.provider
    },
    get model() {
      return current.model
    },
    get contextWindow() {
      return current.contextWindow
    },
    stream: (request) => attempt(current, request),
  }
}
