import { describe, expect, test } from "bun:test"
import { configuredCredentials, withCredentials } from "../../src/net/credentials.ts"
import { redactFetchParams, redactUrl, scrubSecrets } from "../../src/net/secrets.ts"

describe("secrets", () => {
  test("URLs lose their password and credential-like query values only", () => {
    expect(redactUrl("https://u:pw@h.test/p?token=abc&page=2&api_key=k&q=x")).toBe("https://u:REDACTED@h.test/p?token=REDACTED&page=2&api_key=REDACTED&q=x")
    expect(redactUrl("https://h.test/p?page=2")).toBe("https://h.test/p?page=2")
  })

  test("fetch parameters: secret headers and auth fields masked, JSON text too", () => {
    const raw = { url: "https://h.test/?access_token=t0k", headers: { Authorization: "Bearer t0k", Accept: "text/html", "X-Api-Key": "k3y" }, auth: { type: "basic", username: "me", password: "pw" } }
    const masked = { url: "https://h.test/?access_token=REDACTED", headers: { Authorization: "[REDACTED]", Accept: "text/html", "X-Api-Key": "[REDACTED]" }, auth: { type: "basic", username: "me", password: "[REDACTED]" } }
    expect(redactFetchParams(raw)).toEqual(masked)
    expect(redactFetchParams(JSON.stringify(raw))).toEqual(masked)
    expect(scrubSecrets("echo: Bearer t0k3n!", ["t0k3n"])).toBe("echo: Bearer [REDACTED]!")
  })

  test("configured credentials: by host with port, then host name; secrets only from the environment", () => {
    const table = { "api.test:8443": { bearer_env: "A" }, "api.test": { basic_user: "me", basic_password_env: "B" }, "c.test": { cookie_env: "C" }, "none.test": { bearer_env: "MISSING" } }
    const env = { A: "tokA", B: "pwB", C: "s=1" }
    expect(configuredCredentials(table, new URL("https://api.test:8443/x"), env)).toEqual({ type: "bearer", token: "tokA" })
    expect(configuredCredentials(table, new URL("https://api.test/x"), env)).toEqual({ type: "basic", username: "me", password: "pwB" })
    expect(configuredCredentials(table, new URL("https://c.test/"), env)).toEqual({ type: "cookie", cookie: "s=1" })
    expect(configuredCredentials(table, new URL("https://none.test/"), env)).toBeUndefined()
    expect(withCredentials({ cookie: "a=1" }, { type: "cookie", cookie: "s=1" })).toEqual({ Cookie: "a=1; s=1" })
  })
})
