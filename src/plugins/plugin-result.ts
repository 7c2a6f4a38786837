import { Predicate } from "effect"
import { ERROR_CODES, type ErrorCode } from "../protocol/error-code.ts"
import type { ToolResult } from "../tool-framework/definition.ts"
import { asJson } from "./plain-json.ts"

/**
 * What a plugin tool's `run` returned, checked against the envelope contract: a result for the pipeline,
 * an error the plugin reported in envelope form, or why the value breaks the contract (a bug in the plugin).
 */
export type PluginResult =
  | { readonly _tag: "result"; readonly result: Pick<ToolResult, "data" | "text" | "status"> }
  | { readonly _tag: "error"; readonly code: ErrorCode; readonly message: string; readonly retryable?: boolean }
  | { readonly _tag: "invalid"; readonly reason: string }

/** The keys of an envelope: an object made only of them, with `text` (or `status` beside `data`/`error`), is one. */
const ENVELOPE_KEYS = new Set(["status", "data", "text", "error", "stats", "context"])

/** The codes a plugin may report itself: not INTERNAL_ERROR (a throw says that) nor CANCELLED (anvil's own). */
export const pluginErrorCode = (code: unknown): ErrorCode | undefined =>
  typeof code === "string" && (ERROR_CODES as ReadonlyArray<string>).includes(code) && code !== "INTERNAL_ERROR" && code !== "CANCELLED" && code !== "INVALID_RESULT"
    ? (code as ErrorCode)
    : undefined

const looksLikeEnvelope = (value: Record<string, unknown>): boolean =>
  Object.keys(value).every((k) => ENVELOPE_KEYS.has(k)) && ("text" in value || ("status" in value && ("data" in value || "error" in value)))

const shown = (value: unknown): string => (JSON.stringify(value) ?? String(value)).slice(0, 80)

/**
 * A plugin's return value as the pipeline's result. A string is the text; any JSON value the data (shown as
 * JSON); an envelope-shaped object (`{text, data?, status?}`, `{status, data}`, or a whole envelope) is read by the
 * envelope's rules: `status` success, partial, or error with `error: {code, message}`, `text` a string when given.
 */
export const readPluginResult = (value: unknown): PluginResult => {
  if (typeof value === "string") return { _tag: "result", result: { data: { output: value }, text: value } }
  if (value === undefined) return { _tag: "result", result: { data: {}, text: "(no output)" } }
  if (typeof value === "function" || typeof value === "symbol") return { _tag: "invalid", reason: `it returned a ${typeof value}, which JSON cannot hold` }
  // Values JSON writes as {} without a word: the model would read an empty success.
  if (value instanceof Error) return { _tag: "invalid", reason: `it returned an Error (${shown(value.message)}) instead of throwing it` }
  if (value instanceof Map || value instanceof Set) {
    return { _tag: "invalid", reason: `it returned a ${value instanceof Map ? "Map" : "Set"}, which JSON writes as {} (return Object.fromEntries(map) or [...set])` }
  }
  const json = asJson(value)
  if (!json.ok) return { _tag: "invalid", reason: `the result cannot be written as JSON: ${json.message}` }
  const plain = json.value
  if (!Predicate.isObject(plain) || Array.isArray(plain) || !looksLikeEnvelope(plain)) {
    const text = JSON.stringify(plain, null, 2) ?? String(plain)
    return { _tag: "result", result: { data: Predicate.isObject(plain) && !Array.isArray(plain) ? plain : { value: plain }, text } }
  }
  const { status, text, data, error } = plain
  if (status !== undefined && status !== "success" && status !== "partial" && status !== "error") {
    return { _tag: "invalid", reason: `its status ${shown(status)} is none of "success", "partial", "error"` }
  }
  if (status === "error") {
    const code = Predicate.isObject(error) ? pluginErrorCode(error.code) : undefined
    if (!Predicate.isObject(error) || typeof error.message !== "string" || code === undefined) {
      return {
        _tag: "invalid",
        reason: `status "error" needs error: {code, message} with a message and one of the codes a plugin may use (NOT_FOUND, INVALID_PARAM, EXECUTION_ERROR, …); it has error ${shown(error)}`,
      }
    }
    return { _tag: "error", code, message: error.message, ...(typeof error.retryable === "boolean" ? { retryable: error.retryable } : {}) }
  }
  if (error !== undefined) return { _tag: "invalid", reason: `it has an error but its status is ${shown(status ?? "success")}, not "error"` }
  if (text !== undefined && typeof text !== "string") return { _tag: "invalid", reason: `its text must be a string, not ${shown(text)}` }
  // Data that is no object is kept under `value`, as a bare JSON value is.
  const object = data === undefined ? {} : Predicate.isObject(data) && !Array.isArray(data) ? data : { value: data }
  // `{status, data}` without a text: the model reads the data as JSON, as it would a bare value.
  const shownText = text ?? JSON.stringify(object, null, 2)
  return { _tag: "result", result: { data: object, text: shownText, ...(status === "partial" ? { status: "partial" as const } : {}) } }
}
