import { describe, expect, test } from "bun:test"
import { Effect, Exit } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeConfig } from "../../src/config/config.ts"
import type { ModelError } from "../../src/llm/model.ts"
import { chooseModelId, resolveModel } from "../../src/llm/resolve-model.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { project } from "../support/harness.ts"

const http = { fetch: () => Promise.reject(new Error("no network in tests")) }
const resolve = (data: Record<string, unknown>, env: Record<string, string>, flag?: string, root = "/tmp") =>
  Effect.runPromiseExit(resolveModel({ config: makeConfig(data, env), root, http, flag }).pipe(Effect.provide(PlatformLive)))
const failure = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) ? ((exit.cause.reasons[0] as { error: ModelError }).error) : undefined

describe("model resolution", () => {
  test("precedence: --model > ANVIL_MODEL > anvil.json > LLM_MODEL_ID > ANTHROPIC_API_KEY > OPENAI_API_KEY", () => {
    const all = { ANVIL_MODEL: "a/1", LLM_MODEL_ID: "m", LLM_BASE_URL: "http://x", ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" }
    expect(chooseModelId(makeConfig({ model: "c/2" }, all), "f/0")).toBe("f/0")
    expect(chooseModelId(makeConfig({ model: "c/2" }, all), undefined)).toBe("a/1")
    expect(chooseModelId(makeConfig({ model: "c/2" }, { ...all, ANVIL_MODEL: "" }), undefined)).toBe("c/2")
    expect(chooseModelId(makeConfig({}, { LLM_MODEL_ID: "qwen2.5", LLM_BASE_URL: "http://x", OPENAI_API_KEY: "k" }), undefined)).toBe("llm/qwen2.5")
    expect(chooseModelId(makeConfig({}, { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" }), undefined)).toBe("anthropic/claude-sonnet-4-5")
    expect(chooseModelId(makeConfig({}, { OPENAI_API_KEY: "k", OPENAI_MODEL: "gpt-x" }), undefined)).toBe("openai/gpt-x")
    expect(chooseModelId(makeConfig({ model: "gpt-4o" }, { OPENAI_BASE_URL: "http://local/v1" }), undefined)).toBe("openai/gpt-4o")
  })

  test("nothing configured names what to set", async () => {
    const error = failure(await resolve({}, {}))
    expect(error?.kind).toBe("config")
    for (const name of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "LLM_MODEL_ID", "LLM_BASE_URL", "--model"]) expect(error?.message).toContain(name)
  })

  test("a hosted provider without its key says which variable to set; a local one needs none", async () => {
    expect(failure(await resolve({}, {}, "openai/gpt-4.1"))?.message).toContain("set OPENAI_API_KEY")
    expect(failure(await resolve({}, {}, "openrouter/x/y"))?.message).toContain("OPENROUTER_API_KEY")
    const local = await resolve({}, {}, "ollama/qwen2.5-coder:7b")
    expect(Exit.isSuccess(local) && local.value).toMatchObject({ id: "ollama/qwen2.5-coder:7b", provider: "ollama", model: "qwen2.5-coder:7b", contextWindow: 32_768 })
    const viaBase = await resolve({}, { OPENAI_BASE_URL: "http://127.0.0.1:1234/v1" }, "openai/local")
    expect(Exit.isSuccess(viaBase)).toBe(true)
  })

  test("LLM_MODEL_ID without LLM_BASE_URL asks for it", async () => {
    expect(failure(await resolve({}, { LLM_MODEL_ID: "qwen" }))?.message).toContain("LLM_BASE_URL")
  })

  test("anvil.json providers describe custom endpoints; unknown providers are explained", async () => {
    const custom = await resolve(
      { model: "lab/llama", providers: { lab: { api: "anthropic", base_url: "http://gpu:9000", api_key_env: "LAB_KEY", context_window: 9000 } } },
      { LAB_KEY: "s" },
    )
    expect(Exit.isSuccess(custom) && custom.value).toMatchObject({ id: "lab/llama", contextWindow: 9000 })
    expect(failure(await resolve({}, {}, "nosuch/m"))?.message).toContain('"providers"')
  })

  test("replay/<file> plays a script from the project", async () => {
    const root = project({})
    writeFileSync(join(root, "s.jsonl"), '{"text":"hi"}\n')
    const exit = await resolve({}, {}, "replay/s.jsonl", root)
    expect(Exit.isSuccess(exit) && exit.value.provider).toBe("replay")
    expect(failure(await resolve({}, {}, "replay/missing.jsonl", root))?.message).toContain("missing.jsonl")
  })
})
