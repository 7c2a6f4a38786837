import { isRecord } from "../protocol/is-record.ts"
import { redactBody } from "./body-secrets.ts"
/**
 * Keeping credentials out of what anvil records: the envelope's
 * params_input, the model-visible text, data and spill files. Header values,
 * auth parameters, URL passwords and credential-like query parameters are
 * replaced by a marker; known secret values are scrubbed from any text.
 */

export const REDACTED = "[REDACTED]"

/** Header names whose values are credentials. */
const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie)$|api[-_]?key|token|secret|password|passwd|session|auth|credential/i
/** Query parameter names whose values are credentials. */
const SECRET_PARAM = /^(key|code|sig|signature|state)$|token|secret|password|passwd|pwd|api[-_]?key|apikey|auth|session|credential|jwt/i

export const isSecretHeader = (name: string): boolean => SECRET_HEADER.test(name)

/** A URL with its password and credential-like query values masked ("REDACTED" so it stays a readable URL). */
export const redactUrl = (raw: string): string => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return raw
  }
  let changed = false
  if (url.password) {
    url.password = "REDACTED"
    changed = true
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAM.test(key)) {
      url.searchParams.set(key, "REDACTED")
      changed = true
    }
  }
  return changed ? url.toString() : raw
}

/** {@link redactUrl}, and the user name masked too: in a model server's URL it is a proxy's login or a token. */
export const redactUrlLogin = (raw: string): string => {
  const masked = redactUrl(raw)
  try {
    const url = new URL(masked)
    if (url.username === "") return masked
    url.username = "REDACTED"
    return url.toString()
  } catch {
    return masked
  }
}

/**
 * Query parameters whose values are scrubbed from the content too: names that are surely credentials only
 * (not "key", "code", "state" or "author", whose everyday values would cut words out of the page).
 */
const SECRET_PARAM_VALUE = /^(sig|signature|jwt|pwd|apikey|api[-_]?key|access[-_]?key|auth)$|token|secret|password|passwd|credential/i

/** The values of a URL's credential query parameters (as decoded and as sent), 8 characters or more: what a server echoing its request would show. */
export const secretQueryValues = (url: URL): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const [key, value] of url.searchParams) if (SECRET_PARAM_VALUE.test(key) && value.length >= 8) out.push(value, encodeURIComponent(value))
  return out
}

/**
 * A secret header's value and the parts a server may echo alone: the token after its scheme, each cookie's value of
 * 8 characters or more (as for query values: a cookie such as theme=dark must not cut "dark" out of the page).
 */
export const secretHeaderValues = (value: string): ReadonlyArray<string> => [
  value,
  value.replace(/^(Bearer|Basic|Token)\s+/i, ""),
  ...value.split(";").map((p) => p.split("=").slice(1).join("=").trim()).filter((v) => v.length >= 8),
]

/**
 * fetch's parameters as they may be recorded: secret headers, every auth
 * field but its type and user name, the URL's secrets and the body's
 * credential fields masked, and the header and auth secrets scrubbed from the
 * body where it repeats them. Accepts
 * the raw call (an object or its JSON text); anything else passes unchanged.
 */
export const redactFetchParams = (raw: unknown): unknown => {
  if (typeof raw === "string") {
    try {
      const parsed: unknown = JSON.parse(raw)
      return isRecord(parsed) ? redactFetchParams(parsed) : raw
    } catch {
      return raw
    }
  }
  if (!isRecord(raw)) return raw
  const out: Record<string, unknown> = { ...raw }
  if (typeof out.url === "string") out.url = redactUrl(out.url)
  if (isRecord(out.headers)) {
    out.headers = Object.fromEntries(Object.entries(out.headers).map(([k, v]) => [k, isSecretHeader(k) ? REDACTED : v]))
  }
  if (typeof out.body === "string") {
    const given = [
      ...(isRecord(raw.headers) ? Object.entries(raw.headers).flatMap(([k, v]) => (isSecretHeader(k) && typeof v === "string" ? secretHeaderValues(v) : [])) : []),
      ...(isRecord(raw.auth) ? Object.entries(raw.auth).flatMap(([k, v]) => (k !== "type" && k !== "username" && typeof v === "string" ? [v] : [])) : []),
    ]
    out.body = scrubSecrets(redactBody(out.body), given)
  }
  if (out.auth !== undefined) {
    out.auth = isRecord(out.auth)
      ? Object.fromEntries(Object.entries(out.auth).map(([k, v]) => [k, k === "type" || k === "username" ? v : REDACTED]))
      : REDACTED
  }
  return out
}

/** Replaces every occurrence of the given secret values (4+ characters) in `text`. */
export const scrubSecrets = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join(REDACTED)
  return out
}
