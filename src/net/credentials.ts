import { isRecord } from "../protocol/is-record.ts"
/** The ways fetch can authenticate: HTTP Basic, a bearer token, or a cookie header. */
export type Credentials =
  | { readonly type: "basic"; readonly username: string; readonly password: string }
  | { readonly type: "bearer"; readonly token: string }
  | { readonly type: "cookie"; readonly cookie: string }

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined)

/**
 * Credentials configured for a host in anvil.json, with the secret itself
 * read from an environment variable (never from the file):
 *
 * ```jsonc
 * "tools": { "fetch": { "credentials": {
 *   "api.example.com":   { "bearer_env": "EXAMPLE_TOKEN" },
 *   "intranet.lan:8443": { "basic_user": "me", "basic_password_env": "INTRANET_PASSWORD" },
 *   "shop.test":         { "cookie_env": "SHOP_COOKIE" }
 * } } }
 * ```
 *
 * The key is matched against the URL's host with its port first, then its
 * host name. A missing variable means no credentials.
 */
export const configuredCredentials = (
  table: Readonly<Record<string, unknown>>,
  url: URL,
  env: Readonly<Record<string, string | undefined>>,
): Credentials | undefined => {
  const entry = table[url.host] ?? table[url.hostname]
  if (!isRecord(entry)) return undefined
  const fromEnv = (key: string) => {
    const name = str(entry[key])
    return name ? str(env[name]) : undefined
  }
  const token = fromEnv("bearer_env")
  if (token) return { type: "bearer", token }
  const password = fromEnv("basic_password_env")
  const username = str(entry.basic_user) ?? fromEnv("basic_user_env")
  if (password && username) return { type: "basic", username, password }
  const cookie = fromEnv("cookie_env")
  if (cookie) return { type: "cookie", cookie }
  return undefined
}

/** The request headers that carry `credentials`, merged into `headers` (an existing Cookie header is extended). */
export const withCredentials = (headers: Readonly<Record<string, string>>, credentials: Credentials): Record<string, string> => {
  const out = { ...headers }
  const existing = Object.keys(out).find((k) => k.toLowerCase() === (credentials.type === "cookie" ? "cookie" : "authorization"))
  if (existing) delete out[existing]
  switch (credentials.type) {
    case "basic":
      out.Authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}`
      break
    case "bearer":
      out.Authorization = `Bearer ${credentials.token}`
      break
    case "cookie": {
      const before = existing ? headers[existing] : undefined
      out.Cookie = before ? `${before}; ${credentials.cookie}` : credentials.cookie
      break
    }
  }
  return out
}

/** The secret strings of `credentials`, for scrubbing them out of any recorded text. */
export const secretValues = (credentials: Credentials | undefined): ReadonlyArray<string> => {
  if (!credentials) return []
  switch (credentials.type) {
    case "basic":
      return [credentials.password, Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")]
    case "bearer":
      return [credentials.token]
    case "cookie":
      return [credentials.cookie, ...credentials.cookie.split(";").map((p) => p.split("=").slice(1).join("=").trim())]
  }
}
