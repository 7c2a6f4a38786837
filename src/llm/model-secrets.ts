import type { ConfigShape } from "../config/config.ts"
import { isRecord } from "../protocol/is-record.ts"
import { KNOWN_PROVIDERS } from "./known-providers.ts"

/**
 * The credentials anvil may reach a model with, whichever model this session
 * uses: every known provider's key variable, every `providers.*.api_key_env`,
 * and the values of those variables, of `providers.*.api_key` and of
 * `providers.*.headers` (an `Authorization` header). Commands never get them
 * (sandbox/command-env.ts), by name or by value.
 */
export const modelSecrets = (config: Pick<ConfigShape, "env" | "data">): { names: Array<string>; values: Array<string> } => {
  const names = new Set<string>()
  for (const p of Object.values(KNOWN_PROVIDERS)) if (p.keyEnv) names.add(p.keyEnv)
  const values: Array<string> = []
  const providers = isRecord(config.data.providers) ? config.data.providers : {}
  for (const p of Object.values(providers)) {
    if (!isRecord(p)) continue
    if (typeof p.api_key_env === "string" && p.api_key_env !== "") names.add(p.api_key_env)
    if (typeof p.api_key === "string") values.push(p.api_key)
    if (isRecord(p.headers)) {
      for (const [h, v] of Object.entries(p.headers)) if (typeof v === "string" && /auth|key|token|secret/i.test(h)) values.push(v.replace(/^(Bearer|Basic|token)\s+/i, ""))
    }
  }
  for (const name of names) {
    const v = config.env[name]
    if (typeof v === "string" && v !== "") values.push(v)
  }
  return { names: [...names], values }
}
