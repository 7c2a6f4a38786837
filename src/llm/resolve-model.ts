import { Effect } from "effect"
import { Path } from "effect/Path"
import type { ConfigShape } from "../config/config.ts"
import { makeAnthropic } from "./anthropic.ts"
import type { ModelHttpShape } from "./http.ts"
import { ModelError } from "./model.ts"
import { makeOpenAiCompatible } from "./openai-compatible.ts"
import { loadReplay } from "./replay.ts"
import { ignoredSettingsNotice } from "../config/ignored.ts"
import { KNOWN_PROVIDERS, type KnownProvider } from "./known-providers.ts"
import { DEFAULT_TIMEOUTS, type ModelTimeouts } from "./request.ts"
import { DEFAULT_RETRY, type RetryPolicy } from "./retry.ts"

type Api = KnownProvider["api"]

export const NOTHING_CONFIGURED =
  "No model is configured. Set one of:\n" +
  "  ANTHROPIC_API_KEY                      (Anthropic; ANTHROPIC_BASE_URL optional)\n" +
  "  OPENAI_API_KEY                         (OpenAI; OPENAI_BASE_URL for any OpenAI-compatible server)\n" +
  "  LLM_MODEL_ID and LLM_BASE_URL          (any OpenAI-compatible server; LLM_API_KEY optional)\n" +
  "or pass --model provider/model (e.g. --model ollama/qwen2.5-coder:7b), or set \"model\" in anvil.json."

const configError = (message: string) => new ModelError({ kind: "config", retryable: false, message })

/** Which model to use, before any provider is built: "provider/model". */
export const chooseModelId = (config: ConfigShape, flag: string | undefined): string | ModelError => {
  const env = config.env
  const explicit = flag ?? (env.ANVIL_MODEL || undefined) ?? (config.get("model", "") || undefined)
  if (explicit) {
    if (explicit.includes("/")) return explicit
    // A bare model name: take the provider from what the environment configures.
    if (env.LLM_BASE_URL) return `llm/${explicit}`
    if (explicit.startsWith("claude")) return `anthropic/${explicit}`
    if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) return `openai/${explicit}`
    if (env.ANTHROPIC_API_KEY) return `anthropic/${explicit}`
    return configError(`The model '${explicit}' names no provider. Write it as provider/model (e.g. openai/${explicit}, ollama/${explicit}).`)
  }
  if (env.LLM_MODEL_ID) return env.LLM_MODEL_ID.includes("/") && !env.LLM_BASE_URL ? env.LLM_MODEL_ID : `llm/${env.LLM_MODEL_ID}`
  if (env.ANTHROPIC_API_KEY) return `anthropic/${env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5"}`
  if (env.OPENAI_API_KEY) return `openai/${env.OPENAI_MODEL ?? "gpt-4.1"}`
  return configError(NOTHING_CONFIGURED)
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined)
const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined)

/**
 * Builds the model from configuration and environment:
 * `--model` > ANVIL_MODEL > anvil.json `model` > LLM_MODEL_ID > ANTHROPIC_API_KEY > OPENAI_API_KEY.
 * A provider's settings come from anvil.json `providers.<name>` ({api, base_url,
 * api_key_env, context_window, max_tokens, headers}) over the built-in table;
 * `replay/<file>` plays a script. Nothing configured fails with a message
 * naming what to set.
 */
export const resolveModel = Effect.fn("resolveModel")(function* (input: {
  readonly config: ConfigShape
  readonly root: string
  readonly http: ModelHttpShape
  readonly flag?: string | undefined
}) {
  const { config } = input
  const env = config.env
  const chosen = chooseModelId(config, input.flag)
  if (chosen instanceof ModelError) return yield* Effect.fail(chosen)
  const slash = chosen.indexOf("/")
  const provider = chosen.slice(0, slash)
  const model = chosen.slice(slash + 1)
  if (provider === "" || model === "") return yield* Effect.fail(configError(`The model '${chosen}' must be written provider/model.`))

  if (provider === "replay") {
    const path = yield* Path
    return yield* loadReplay(path.resolve(input.root, model), model)
  }

  const custom = config.get(`providers.${provider}`, {} as Record<string, unknown>)
  // Why a provider the project file describes may be missing its server: its settings are not trusted yet.
  const untrusted = ignoredSettingsNotice(
    config.ignored?.filter((s) => s.path[0] === "providers" && s.path[1] === provider),
  )
  const providerError = (message: string) => configError(untrusted ? `${message} Note: ${untrusted}` : message)
  // Own names only: `-m constructor/x` names no provider, not Object's constructor.
  const known = Object.hasOwn(KNOWN_PROVIDERS, provider) ? KNOWN_PROVIDERS[provider] : undefined
  const api = (str(custom.api) ?? known?.api) as Api | undefined
  if (!known && !custom.base_url) {
    return yield* Effect.fail(
      providerError(
        `Unknown provider '${provider}'. Known: ${Object.keys(KNOWN_PROVIDERS).join(", ")}, replay. ` +
          `Or describe it in anvil.json: "providers": {"${provider}": {"api": "openai", "base_url": "http://host:port/v1", "api_key_env": "MY_KEY"}}.`,
      ),
    )
  }
  if (api !== "openai" && api !== "anthropic") {
    return yield* Effect.fail(providerError(`providers.${provider}.api must be "openai" or "anthropic".`))
  }
  const baseFromEnv = known?.baseEnv ? str(env[known.baseEnv]) : undefined
  const baseUrl = str(custom.base_url) ?? baseFromEnv ?? known?.baseUrl
  if (!baseUrl) {
    return yield* Effect.fail(
      providerError(
        provider === "llm"
          ? `LLM_MODEL_ID is set but LLM_BASE_URL is not. Set LLM_BASE_URL (e.g. http://localhost:11434/v1) and, if the server needs one, LLM_API_KEY.`
          : `No base URL for provider '${provider}'. Set providers.${provider}.base_url in anvil.json.`,
      ),
    )
  }
  const keyEnv = str(custom.api_key_env) ?? known?.keyEnv
  const apiKey = (keyEnv ? str(env[keyEnv]) : undefined) ?? str(custom.api_key)
  const hosted = known !== undefined && baseUrl === known.baseUrl && !str(custom.base_url)
  if (!apiKey && known?.keyRequired && hosted) {
    return yield* Effect.fail(
      providerError(
        `The model '${chosen}' needs an API key: set ${keyEnv}` +
          (known.baseEnv ? ` (and ${known.baseEnv} for a compatible server other than the default ${known.baseUrl}).` : "."),
      ),
    )
  }
  const retryConfig = config.get("model_retry", {} as Record<string, unknown>)
  const retry: RetryPolicy = {
    retries: typeof retryConfig.retries === "number" && retryConfig.retries >= 0 ? retryConfig.retries : DEFAULT_RETRY.retries,
    baseDelayMs: num(retryConfig.base_delay_ms) ?? DEFAULT_RETRY.baseDelayMs,
    maxDelayMs: num(retryConfig.max_delay_ms) ?? DEFAULT_RETRY.maxDelayMs,
  }
  const timeoutConfig = config.get("model_timeout", {} as Record<string, unknown>)
  const timeouts: ModelTimeouts = {
    requestMs: (num(timeoutConfig.request_sec) ?? DEFAULT_TIMEOUTS.requestMs / 1000) * 1000,
    idleMs: (num(timeoutConfig.idle_sec) ?? DEFAULT_TIMEOUTS.idleMs / 1000) * 1000,
  }
  const contextWindow = num(custom.context_window) ?? num(config.get("context_window", 0)) ?? known?.contextWindow ?? 128_000
  const maxTokens = num(custom.max_tokens) ?? num(config.get("max_tokens", 0))
  const headers = Object.fromEntries(
    Object.entries(typeof custom.headers === "object" && custom.headers !== null ? (custom.headers as Record<string, unknown>) : {}).filter(
      (e): e is [string, string] => typeof e[1] === "string",
    ),
  )
  const common = { provider, model, baseUrl, apiKey, keyEnv, contextWindow, maxTokens, headers, retry, timeouts }
  return api === "anthropic"
    ? makeAnthropic(input.http, common)
    : makeOpenAiCompatible(input.http, { ...common, ...(custom.stream_usage === false ? { streamUsage: false } : {}) })
})
