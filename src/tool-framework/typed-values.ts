import type { SchemaAST } from "effect"
import { isRecord } from "../protocol/is-record.ts"

/**
 * Values of a next step's parameter that a number, a boolean or a set of words expects: a stand-in written as the
 * text "<correct_value>" there would be answered INVALID_PARAM again, and a model copies a hint's types.
 */

export interface NumberBounds {
  readonly integer?: boolean
  readonly min?: number
  readonly minExclusive?: boolean
  readonly max?: number
  readonly maxExclusive?: boolean
}

/** The bounds a number's checks set (Schema.Int, isGreaterThan, isBetween, …), read from their constraints. */
export const boundsOf = (checks: ReadonlyArray<unknown>): NumberBounds => {
  let bounds: NumberBounds = {}
  const visit = (check: unknown): void => {
    if (!isRecord(check)) return
    if (Array.isArray(check.checks)) check.checks.forEach(visit)
    const annotations = isRecord(check.annotations) ? check.annotations : {}
    const c = isRecord(annotations.arbitraryConstraint) ? annotations.arbitraryConstraint : {}
    if (c.number === "integer") bounds = { ...bounds, integer: true }
    if (typeof c.minimum === "number") bounds = { ...bounds, min: c.minimum, minExclusive: c.exclusiveMinimum === true }
    if (typeof c.maximum === "number") bounds = { ...bounds, max: c.maximum, maxExclusive: c.exclusiveMaximum === true }
  }
  checks.forEach(visit)
  return bounds
}

const fits = (n: number, b: NumberBounds): boolean =>
  Number.isFinite(n) &&
  (!b.integer || Number.isInteger(n)) &&
  (b.min === undefined || (b.minExclusive ? n > b.min : n >= b.min)) &&
  (b.max === undefined || (b.maxExclusive ? n < b.max : n <= b.max))

/**
 * A number for the parameter: the one given as text when it fits (`"200"` → 200), else the smallest value the
 * bounds allow (0 where they allow it: an offset, a count of context lines; 1 for a limit that must be over 0).
 */
export const numberFor = (bounds: NumberBounds, given: unknown): number => {
  const asText = typeof given === "string" && given.trim() !== "" ? Number(given.trim()) : Number.NaN
  if (fits(asText, bounds)) return asText
  const min = bounds.min
  const value = min === undefined ? 0 : bounds.minExclusive ? (bounds.integer ? Math.floor(min) + 1 : min + 1) : bounds.integer ? Math.ceil(min) : min
  if (fits(value, bounds) || bounds.max === undefined) return value
  return bounds.integer ? (bounds.maxExclusive ? Math.ceil(bounds.max) - 1 : Math.floor(bounds.max)) : bounds.max
}

/** A boolean for the parameter: the one given as text ("true", "false"), else true (a flag is given to turn it on). */
export const booleanFor = (given: unknown): boolean => (typeof given === "string" && given.trim().toLowerCase() === "false" ? false : true)

/** The words a parameter takes when it is a set of literals (grep's output_mode), else none. */
export const literalsOf = (ast: SchemaAST.AST): ReadonlyArray<unknown> => {
  if (ast._tag === "Literal") return [ast.literal]
  if (ast._tag !== "Union") return []
  const members = ast.types.filter((t) => t._tag !== "Undefined" && t._tag !== "Null")
  return members.length > 0 && members.every((t) => t._tag === "Literal") ? members.map((t) => (t as SchemaAST.Literal).literal) : []
}

/** A word as compared: lowercase, a space or dash written as `_` (`In-Progress` is `in_progress`). */
const wordKey = (text: string): string => text.trim().toLowerCase().replace(/[\s-]+/g, "_")

/**
 * One of the words: the one given in another case or spelling (`"COUNT"`, `"in progress"`), else the only one the
 * given text begins (`"files"` is `files_with_matches`), else the first.
 */
export const literalFor = (literals: ReadonlyArray<unknown>, given: unknown): unknown => {
  const wanted = typeof given === "string" ? wordKey(given) : undefined
  const words = literals.filter((l): l is string => typeof l === "string")
  const exact = words.find((l) => wordKey(l) === wanted)
  if (exact !== undefined) return exact
  const begun = wanted !== undefined && wanted.length >= 2 ? words.filter((l) => wordKey(l).startsWith(wanted)) : []
  return begun.length === 1 ? begun[0] : literals[0]
}
