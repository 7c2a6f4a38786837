import { lookup } from "./lookup.ts"
import { Result, Schema, SchemaIssue } from "effect"
import { AnvilConfig, ENV_KEYS, settingsOf } from "./schema.ts"
import type { ConfigWarning } from "./warning.ts"

/** anvil.json's merged settings (config.ts's ConfigData, not imported: config.ts loads this module). */
type ConfigData = Readonly<Record<string, unknown>>

const decode = Schema.decodeUnknownResult(AnvilConfig)
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const nest = (key: string, value: unknown): unknown => key.split(".").reduceRight<unknown>((inner, part) => ({ [part]: inner }), value)

/** Why the Schema refuses `value` at `key` ("expected ..."), or undefined when it accepts it. */
const refusal = (key: string, value: unknown): string | undefined => {
  const result = decode(nest(key, value))
  if (Result.isSuccess(result)) return undefined
  const message = formatter(result.failure.issue).issues[0]?.message ?? "Expected another value"
  return message.replace(/^Expected/, "expected").replace(/ \| undefined$/, "")
}

/** Whether the Schema accepts `value` at `key` (a value of the wrong type is not used: readers fall back). */
export const accepts = (key: string, value: unknown): boolean => refusal(key, value) === undefined

/** An environment value as the setting's type (numbers parsed, fractions floored), when the Schema accepts it. */
export const fromEnvironment = (key: string, raw: string): { readonly value: unknown } | undefined => {
  if (raw.trim() === "") return undefined
  for (const candidate of [raw, Number(raw)]) {
    if (accepts(key, candidate)) return { value: typeof candidate === "number" ? Math.floor(candidate) : candidate }
  }
  return undefined
}

const shown = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

/** The value a setting with an environment variable has when one source is refused: the variable's, anvil.json's or the default. */
const valueInUse = (data: ConfigData, env: Readonly<Record<string, string | undefined>>, key: string, fallback: unknown): string => {
  for (const [variable, target] of Object.entries(ENV_KEYS)) {
    const parsed = target === key && env[variable] !== undefined ? fromEnvironment(key, env[variable]) : undefined
    if (parsed) return `${variable}'s ${shown(parsed.value)} is used instead`
  }
  const fileValue = lookup(data, key)
  if (fileValue !== undefined && accepts(key, fileValue)) return `anvil.json's ${shown(fileValue)} is used instead`
  return fallback !== undefined ? `the default ${shown(fallback)} is used instead` : `it is ignored (${key} stays unset)`
}

/**
 * A warning for each set environment variable of ENV_KEYS (TOOL_OUTPUT_MAX_LINES, ...) whose value
 * the setting's Schema refuses: readers then ignore it, so the warning names the variable, its
 * value, what is accepted and the value used instead (anvil.json's, else the default). An empty
 * value counts as unset. anvil.json's own refused values of these settings (`fileWarnings`) get the
 * value used instead added to their message.
 */
export const environmentWarnings = (
  data: ConfigData,
  env: Readonly<Record<string, string | undefined>>,
  fileWarnings: ReadonlyArray<ConfigWarning> = [],
): ReadonlyArray<ConfigWarning> => {
  const defaults = new Map(settingsOf().map((s) => [s.key, s.fallback]))
  const targets = new Set(Object.values(ENV_KEYS))
  const warnings: Array<ConfigWarning> = fileWarnings.map((w) =>
    w.kind === "invalid_value" && targets.has(w.key) ? { ...w, message: `${w.message}; ${valueInUse(data, env, w.key, defaults.get(w.key))}` } : w,
  )
  for (const [variable, key] of Object.entries(ENV_KEYS)) {
    const raw = env[variable]
    if (raw === undefined || raw.trim() === "" || fromEnvironment(key, raw) !== undefined) continue
    const fallback = defaults.get(key)
    // The refusal of the candidate of the setting's own type says what is accepted ("a finite number", "a value >= 1").
    const expected = refusal(key, typeof fallback === "number" ? Number(raw) : raw) ?? refusal(key, raw) ?? "expected another value"
    warnings.push({
      file: "environment",
      line: 0,
      column: 0,
      key,
      kind: "invalid_environment",
      variable,
      message: `${variable}=${shown(raw)} is not valid for '${key}': ${expected}; ${valueInUse(data, {}, key, fallback)}`,
    })
  }
  return warnings
}
