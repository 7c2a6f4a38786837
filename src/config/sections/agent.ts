import { Schema } from "effect"
import { Count, Fraction, NonNegative, setting, type ConfigSection } from "../section.ts"

/** The agent's settings that have fixed defaults (readers use these). */
export const AGENT_DEFAULTS = {
  max_steps: 50,
  subagent_max_steps: 30,
  verify_timeout_ms: 600_000,
  verify_attempts: 2,
  compaction: { threshold: 0.8, keep_fraction: 0.3 },
} as const

const Provider = Schema.Struct({
  api: setting(Schema.Literals(["openai", "anthropic"]), "The protocol: OpenAI Chat Completions or Anthropic Messages."),
  base_url: setting(Schema.String, "The server's base URL, e.g. http://host:8000/v1."),
  api_key_env: setting(Schema.String, "The environment variable that holds the API key."),
  api_key: setting(Schema.String, "The API key itself (prefer api_key_env)."),
  context_window: setting(Count(), "The model's context window in tokens."),
  max_tokens: setting(Count(), "The most tokens one answer may have."),
  headers: setting(Schema.Record(Schema.String, Schema.String), "Extra HTTP headers sent with every request."),
  stream_usage: setting(Schema.Boolean, "Ask the server for token usage while streaming (OpenAI protocol)."),
})

/** The model and the agent loop. */
export const agentSection: ConfigSection = {
  fields: () => ({
    model: setting(Schema.String, "The model, as provider/model (e.g. anthropic/claude-sonnet-4-5)."),
    providers: setting(Schema.Record(Schema.String, Provider), "Providers of your own, or settings for a known one, by name."),
    model_retry: setting(
      Schema.Struct({
        retries: setting(NonNegative(), "Retries of a request that failed with 429, 5xx, a dropped connection or a server error before its answer streamed."),
        base_delay_ms: setting(Count(), "The first backoff delay."),
        max_delay_ms: setting(Count(), "The longest wait before a retry (default 60000); a server asking for a longer Retry-After fails the turn at once."),
      }),
      "How failed model requests are retried.",
    ),
    max_steps: setting(Count(), "Model requests per turn.", AGENT_DEFAULTS.max_steps),
    subagent_max_steps: setting(Count(), "Model requests of one task subagent.", AGENT_DEFAULTS.subagent_max_steps),
    engine: setting(Schema.Literals(["native", "react"]), "Native tool calls or the ReAct text protocol.", "native"),
    verify: setting(Schema.String, "The command run when the model is done (auto-verification)."),
    verify_timeout_ms: setting(Count(), "How long the verify command may run.", AGENT_DEFAULTS.verify_timeout_ms),
    verify_attempts: setting(NonNegative(), "Rounds the model gets to fix a failing verify command.", AGENT_DEFAULTS.verify_attempts),
    context_window: setting(Count(), "The model's context window in tokens (when the provider does not say)."),
    max_tokens: setting(Count(), "The most tokens one answer may have."),
    model_timeout: setting(
      Schema.Struct({
        request_sec: setting(Count(), "Seconds to wait for a model's response headers.", 120),
        idle_sec: setting(Count(), "Seconds a streaming answer may stay silent.", 180),
      }),
      "When a model request is given up.",
    ),
    sessions: setting(
      Schema.Struct({ retention_days: setting(NonNegative(), "Sessions unused this long are removed (0 keeps them).", 30) }),
      "Session files.",
    ),
    compaction: setting(
      Schema.Struct({
        threshold: setting(Fraction(), "Compact the history when it fills this fraction of the context window.", AGENT_DEFAULTS.compaction.threshold),
        keep_fraction: setting(Fraction(), "The fraction of the context window kept verbatim.", AGENT_DEFAULTS.compaction.keep_fraction),
      }),
      "When and how much of the history is summarised.",
    ),
  }),
  env: { ANVIL_MODEL: "model" },
}
