import { isRecord } from "../protocol/is-record.ts"

/**
 * Credentials inside a request body: a JSON document's or a form's fields
 * named like one (`password`, `client_secret`, `access_token`, `api_key`, …).
 * What is recorded of the call shows them masked; their values are scrubbed
 * from an answer that echoes them, as a query parameter's are.
 */

/**
 * Field names whose values are credentials (the query parameters' rule, less `key`, `code`, `state`: everyday words
 * in a body). `auth` and `session` only as words of their own (`auth`, `auth_code`, `session_id`, `sessionKey`): a
 * body's `author` or `session_name` is content, and its value must stay in the answer that echoes it.
 */
const SECRET_FIELD = /^(sig|signature|pwd|jwt)$|token|secret|password|passwd|api[-_]?key|apikey|access[-_]?key|(^|[-_])auth($|[-_])|authorization|credential|(^|[-_])session([-_]?(id|key))?$/i

const MASK = "[REDACTED]"

/** A form body (`a=1&b=2`): every part is a name and a value, with nothing that is not URL-encoded text. */
const isForm = (body: string): boolean => /^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$/.test(body)

type Found = Array<string>

const maskJson = (value: unknown, found: Found): unknown => {
  if (Array.isArray(value)) return value.map((v) => maskJson(v, found))
  if (!isRecord(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      if (!SECRET_FIELD.test(k) || isRecord(v) || Array.isArray(v) || v === null) return [k, maskJson(v, found)]
      found.push(String(v))
      return [k, MASK]
    }),
  )
}

/** The body with its credential fields masked, and the values masked; the body unchanged when it has none (or is neither JSON nor a form). */
const examine = (body: string): { readonly masked: string; readonly values: ReadonlyArray<string> } => {
  const found: Found = []
  const trimmed = body.trim()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    let parsed: unknown
    try {
      parsed = JSON.parse(trimmed)
    } catch {
      return { masked: body, values: [] }
    }
    const masked = maskJson(parsed, found)
    return { masked: found.length > 0 ? JSON.stringify(masked) : body, values: found }
  }
  if (!isForm(trimmed)) return { masked: body, values: [] }
  const parts = trimmed.split("&").map((part) => {
    const at = part.indexOf("=")
    const name = part.slice(0, at)
    let decoded = name
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, " "))
    } catch {}
    if (!SECRET_FIELD.test(decoded)) return part
    const value = part.slice(at + 1)
    found.push(value)
    try {
      found.push(decodeURIComponent(value.replace(/\+/g, " ")))
    } catch {}
    return `${name}=${MASK}`
  })
  return { masked: found.length > 0 ? parts.join("&") : body, values: found }
}

/** The body as it may be recorded: credential fields of a JSON or form body masked. */
export const redactBody = (body: string): string => examine(body).masked

/** The credential values a body carries (8 characters or more, as for query values): scrubbed from what comes back. */
export const secretBodyValues = (body: string | undefined): ReadonlyArray<string> =>
  body === undefined ? [] : examine(body).values.filter((v) => v.length >= 8)
