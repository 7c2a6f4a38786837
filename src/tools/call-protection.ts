import { Effect } from "effect"
import { CallProtection, type ProtectionCell } from "../sandbox/protected-write.ts"

const cells = new WeakMap<object, ProtectionCell>()

/**
 * A file tool's precheck and run find the project's protected paths once between them. The precheck starts a
 * fresh cell for the call's parameters (the runner hands the same decoded object to precheck and run) and the run
 * takes it over: a precheck always finds them anew, so a cell never outlives its call, and parameters an approver
 * replaced are a new object whose run finds them itself.
 */
export const protectionInPrecheck =
  (params: object) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const cell: ProtectionCell = {}
      cells.set(params, cell)
      return Effect.provideService(effect, CallProtection, cell)
    })

/** See {@link protectionInPrecheck}: the run's half. */
export const protectionInRun =
  (params: object) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const cell = cells.get(params) ?? {}
      cells.delete(params)
      return Effect.provideService(effect, CallProtection, cell)
    })
