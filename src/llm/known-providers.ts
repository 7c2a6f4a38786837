/** The providers anvil knows by name (their own module: the sandbox reads their key variables without the model code). */

type Api = "openai" | "anthropic"

/** A provider anvil knows by name: its wire protocol, default endpoint and key variable. */
export interface KnownProvider {
  readonly api: Api
  readonly baseUrl?: string
  /** Environment variable overriding the base URL. */
  readonly baseEnv?: string
  readonly keyEnv?: string
  /** Whether a key is required when the default (hosted) endpoint is used. */
  readonly keyRequired: boolean
  readonly contextWindow: number
}

export const KNOWN_PROVIDERS: Readonly<Record<string, KnownProvider>> = {
  openai: { api: "openai", baseUrl: "https://api.openai.com/v1", baseEnv: "OPENAI_BASE_URL", keyEnv: "OPENAI_API_KEY", keyRequired: true, contextWindow: 128_000 },
  anthropic: { api: "anthropic", baseUrl: "https://api.anthropic.com", baseEnv: "ANTHROPIC_BASE_URL", keyEnv: "ANTHROPIC_API_KEY", keyRequired: true, contextWindow: 200_000 },
  ollama: { api: "openai", baseUrl: "http://localhost:11434/v1", baseEnv: "OLLAMA_BASE_URL", keyRequired: false, contextWindow: 32_768 },
  lmstudio: { api: "openai", baseUrl: "http://localhost:1234/v1", baseEnv: "LMSTUDIO_BASE_URL", keyRequired: false, contextWindow: 32_768 },
  vllm: { api: "openai", baseUrl: "http://localhost:8000/v1", baseEnv: "VLLM_BASE_URL", keyEnv: "VLLM_API_KEY", keyRequired: false, contextWindow: 32_768 },
  deepseek: { api: "openai", baseUrl: "https://api.deepseek.com/v1", keyEnv: "DEEPSEEK_API_KEY", keyRequired: true, contextWindow: 64_000 },
  openrouter: { api: "openai", baseUrl: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY", keyRequired: true, contextWindow: 128_000 },
  qwen: { api: "openai", baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1", keyEnv: "DASHSCOPE_API_KEY", keyRequired: true, contextWindow: 128_000 },
  // the HelloAgents environment: LLM_MODEL_ID / LLM_API_KEY / LLM_BASE_URL, any OpenAI-compatible server.
  llm: { api: "openai", baseEnv: "LLM_BASE_URL", keyEnv: "LLM_API_KEY", keyRequired: false, contextWindow: 128_000 },
}
