import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, toolResults } from "../support/anvil-cli.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { tempDir } from "../support/harness.ts"
import { runBinary, sandboxBinary } from "./binary.ts"

// `"read": "ask"` (or `{"*": "ask", …}`) asks before any file is read. The sandbox cannot hide every file from a
// command, so each confined bash command is asked about, as any ask is (sandbox.auto_allow does not spare it): a
// person at a terminal, else --yes or an --allow rule; an approved command may read what is only asked about, while
// the places deny rules name stay hidden. Through the compiled binary.
setDefaultTimeout(60_000)

const binary = sandboxBinary()
const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

const RULES = { "*": "ask", "secret.txt": "deny" }

/** A git project with a plain file and a denied one, `read` asked about as a whole in the user's own settings. */
const world = (read: unknown = RULES) => {
  const root = tempDir("anvil-read-ask-")
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  writeFileSync(join(root, "x.txt"), "PLAIN\n")
  writeFileSync(join(root, "secret.txt"), "SEC-DENIED\n")
  const home = tempDir("anvil-read-ask-home-")
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  const file = join(home, ".config", "anvil", "anvil.json")
  writeFileSync(file, JSON.stringify({ permission: { read } }))
  return { root, home, file }
}

/** `anvil run` (no terminal) whose model runs `command` with bash once; the bash tool's envelope. */
const runBash = async (w: ReturnType<typeof world>, command: string, flags: ReadonlyArray<string>) => {
  const server = fakeOpenAI([{ tool_calls: [{ name: "bash", arguments: { command } }] }, { text: "done" }])
  servers.push(server)
  const env = { HOME: w.home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
  const r = await runBinary(binary(), ["run", "--no-verify", ...flags, "--format", "stream-json", "go"], w.root, env)
  return toolResults(jsonLines(r.out))[0].envelope
}

describe('bash while "read" asks about every file', () => {
  test("without a terminal a confined command is refused as an unapproved ask, naming the read rule and how to approve", async () => {
    const w = world()
    const env = await runBash(w, "cat x.txt", [])
    expect(env.error.code).toBe("PERMISSION_DENIED")
    expect(env.error.message).toContain(`the rule "read": {"*": "ask"} in "permission" of ${w.file}`)
    expect(env.error.message).toContain("asks before any file is read")
    expect(env.error.message).toContain("--yes")
    expect(JSON.stringify(env)).not.toContain("PLAIN")
  })

  test("--yes or an --allow rule naming the command approves it: it runs confined, reads the asked-about file, not the denied one", async () => {
    const w = world()
    for (const flags of [["--yes"], ["--allow", "bash:cat x.txt secret.txt"]]) {
      const env = await runBash(w, "cat x.txt secret.txt", flags)
      expect(env.status).toBe("success")
      expect(env.data.stdout).toContain("PLAIN")
      expect(env.data.stdout).not.toContain("SEC-DENIED")
      expect(env.data.sandbox.refused.map((r: { kind: string }) => r.kind)).toContain("masked")
    }
    // An --allow rule for another command approves nothing here.
    const other = await runBash(w, "cat x.txt", ["--allow", "bash:ls"])
    expect(other.error.code).toBe("PERMISSION_DENIED")
  })

  test("`anvil tool bash` (the user's own call is the approval) runs it; `anvil sandbox` says each command is asked about", async () => {
    const w = world({ "*": "ask", "src/**": "allow" })
    const ran = JSON.parse((await runBinary(binary(), ["tool", "bash", JSON.stringify({ command: "cat x.txt secret.txt" })], w.root, { HOME: w.home })).out)
    expect(ran.data.stdout).toBe("PLAIN\nSEC-DENIED")
    const report = await runBinary(binary(), ["sandbox"], w.root, { HOME: w.home })
    expect(report.out).toContain("each confined bash command is asked about before it runs")
    expect(report.out).not.toContain("confined commands are refused")
  })

  test('"read": "deny" still runs no confined command, --yes or not', async () => {
    const w = world("deny")
    const env = await runBash(w, "cat x.txt", ["--yes"])
    expect(env.error.code).toBe("PERMISSION_DENIED")
    expect(env.error.message).toContain(`The command was not run: the rule "read": "deny" in "permission" of ${w.file}`)
  })
})
