import { Effect } from "effect"
import type { ToolError } from "../protocol/tool-error.ts"

/**
 * Translation of one domain's tagged errors at the tool boundary: those that
 * are instances of `classes` become envelope errors through `translate`; any
 * other error (the workspace's, already translated) passes through.
 */
export const translateDomainErrors =
  <D, C = void>(classes: ReadonlyArray<abstract new (...args: never) => D>, translate: (e: D, call: C) => ToolError) =>
  <A, E, R>(effect: Effect.Effect<A, E | D, R>, call: C): Effect.Effect<A, Exclude<E, D> | ToolError, R> => {
    const isDomain = (e: unknown): e is D => classes.some((c) => e instanceof c)
    return Effect.mapError(effect, (e) => (isDomain(e) ? translate(e, call) : (e as Exclude<E, D>)))
  }
