import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, requireBwrap, runBinary } from "./binary.ts"

// Through the compiled binary, confined and not: what a command learns of anvil's environment, and how its end by
// a signal reads.
setDefaultTimeout(60_000)

let binary = ""
beforeAll(async () => {
  requireBwrap()
  binary = await anvilBinary()
}, 120_000)

const setup = (user: unknown) => {
  const base = tempDir("anvil-cmdenv-")
  const root = join(base, "proj")
  const home = join(base, "home")
  mkdirSync(root)
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify(user))
  return { root, home }
}

const bash = async (root: string, env: Record<string, string>, params: Record<string, unknown>, mode: string) =>
  JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify(params), "--sandbox", mode], root, env)).out)

describe("the model's commands through the binary, sandbox on and off", () => {
  test.each(["workspace-write", "off"])("%s: secret-looking variables and the model's key are withheld, allow_env lets one through; a signal death is 128+N with the signal named", async (mode) => {
    const { root, home } = setup({ sandbox: { allow_env: ["NPM_TOKEN", "ANTHROPIC_API_KEY"] } })
    const env = { HOME: home, GITHUB_TOKEN: "gh-1", NPM_TOKEN: "npm-1", ANTHROPIC_API_KEY: "sk-ant-test-0123456789", ALIAS: "sk-ant-test-0123456789", LANG: "C.UTF-8", CI: "1" }
    const r = await bash(root, env, { command: "env | grep -E '^(GITHUB_TOKEN|NPM_TOKEN|ANTHROPIC_API_KEY|ALIAS|LANG|CI)=' | sort" }, mode)
    expect(r.data.stdout).toBe("CI=1\nLANG=C.UTF-8\nNPM_TOKEN=npm-1")
    expect(r.data.sandbox.env_withheld).toEqual(["ALIAS", "ANTHROPIC_API_KEY", "GITHUB_TOKEN"])
    const killed = await bash(root, { HOME: home }, { command: "kill -9 $$" }, mode)
    expect(killed.data).toMatchObject({ exit_code: 137, signal: "SIGKILL", killed: true, timed_out: false })
    const termed = await bash(root, { HOME: home }, { args: ["sh", "-c", "kill -TERM $$"] }, mode)
    expect(termed.data).toMatchObject({ exit_code: 143, signal: "SIGTERM", killed: true })
    expect(termed.text).toContain("Exit code: 143 (killed by SIGTERM)")
    const plain = await bash(root, { HOME: home }, { command: "exit 3" }, mode)
    expect(plain.data).toMatchObject({ exit_code: 3, signal: null, killed: false })
  })
})
