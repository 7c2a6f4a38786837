import { Schema } from "effect"

/**
 * One part of anvil.json: the top-level keys it owns, as Schema fields, and
 * the environment variables that override some of them. Sections are listed
 * in `sections/index.ts`; the merged Schema is `AnvilConfig`.
 */
export interface ConfigSection {
  /** Top-level keys, each optional (use `setting`); made when first asked for, so reading a default costs no Schema. */
  readonly fields: () => SettingFields
  /** Environment variables that set a key of this section: variable name → dotted key path. */
  readonly env?: Readonly<Record<string, string>>
}

/** Keys of an object in anvil.json, each a Schema that needs no services to decode. */
export type SettingFields = Readonly<Record<string, Schema.Codec<unknown, unknown, never, never>>>

/** An optional key with its description and, when it has a fixed one, its default (both reach the JSON Schema). */
export const setting = <S extends Schema.Top>(schema: S, description: string, fallback?: unknown) =>
  Schema.optionalKey(schema.annotate({ description, ...(fallback !== undefined ? { default: fallback } : {}) }))

/** A positive number of things (a limit, a timeout); readers floor fractions. (Functions: a Schema is made only inside `fields`.) */
export const Count = () => Schema.Finite.check(Schema.isGreaterThanOrEqualTo(1))

/** A number that may be zero (retries). */
export const NonNegative = () => Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))

/** A fraction between 0 and 1. */
export const Fraction = () => Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))

/** A list of names or paths. */
export const Names = () => Schema.Array(Schema.String)
