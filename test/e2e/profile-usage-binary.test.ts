import { describe, expect, test } from "bun:test"
import { runBinary } from "../support/binary.ts"
import { binaryRepo } from "../support/binary-repo.ts"

// A model is configured but unreachable: the command line is refused before anything would ask it.
const MODEL = { OPENAI_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }

describe("a --profile no profile has is the command line's mistake: exit 2, like --engine (binary)", () => {
  test("anvil run: usage result with bad_value, the profiles named; nothing is asked of the model", async () => {
    const r = binaryRepo({})
    for (const argv of [["--profile", "nope"], ["--profile=Plan"], ["--agent", "reviewer"]]) {
      const out = await runBinary(["run", ...argv, "hi", "-f", "json"], { cwd: r.root, env: { ...r.env, ...MODEL } })
      expect(out.code).toBe(2)
      const flag = argv[0]!.split("=")[0]!
      const given = argv[1] ?? argv[0]!.split("=")[1]!
      expect(out.stderr).toContain(`anvil run: ${flag} is code, plan, explore, test, not '${given}'`)
      expect(JSON.parse(out.stdout)).toMatchObject({ reason: "usage", exit_code: 2, usage_error: "bad_value" })
    }
  })

  test("anvil chat says the same and exits 2; a profile that exists still runs", async () => {
    const r = binaryRepo({}, { model_retry: { retries: 0 } })
    const chat = await runBinary(["chat", "--profile", "nope"], { cwd: r.root, env: { ...r.env, ...MODEL }, stdin: "" })
    expect(chat.code).toBe(2)
    expect(chat.stderr).toContain("anvil chat: --profile is code, plan, explore, test, not 'nope'")
    const known = await runBinary(["run", "--profile", "plan", "hi", "-f", "json"], { cwd: r.root, env: { ...r.env, ...MODEL } })
    expect(JSON.parse(known.stdout).reason).toBe("model_error")
  })
})
