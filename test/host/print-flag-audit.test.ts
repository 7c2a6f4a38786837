import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir } from "../support/harness.ts"

// The flags the Agent SDK's query() passes, through the compiled binary: each one anvil cannot honour is refused with
// the SDK option it stands for, none is left silently unused, and no flag's value is read as the prompt.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
beforeAll(() => void anvilBinary(), 120_000)

const home = (config: unknown = {}) => {
  const dir = tempDir("anvil-audit-home-")
  mkdirSync(join(dir, ".config/anvil"), { recursive: true })
  writeFileSync(join(dir, ".config/anvil/anvil.json"), JSON.stringify(config))
  return dir
}
const openai = (turns: ReadonlyArray<FakeTurn>, config: unknown = {}) => {
  const server = fakeOpenAI(turns)
  servers.push(server)
  return { server, env: { HOME: home(config), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" } }
}
const lines = (stdout: string) => stdout.trim().split("\n").map((l) => JSON.parse(l))
const userLine = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`
const host = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--model", "openai/gpt-test"]

describe("flags anvil cannot honour are refused", () => {
  test("each names the SDK option and what to do instead; nothing runs", async () => {
    const cases: ReadonlyArray<[ReadonlyArray<string>, string]> = [
      [["--effort", "high"], "--effort (the Agent SDK's effort option) is not supported"],
      [["--task-budget", "1000"], "taskBudget"],
      [["--agent", "reviewer"], "--agent (the Agent SDK's agent option) is not supported"],
      [["--betas", "context-1m"], "providers.anthropic.headers"],
      [["--resume-session-at", "abc"], "resumeSessionAt"],
      [["--session-id", "11111111-1111-1111-1111-111111111111"], "sessionId"],
      [["--managed-settings", "{}"], "managedSettings"],
      [["--include-hook-events"], "includeHookEvents"],
      [["--plugin-dir-no-mcp", "."], "skipMcpDiscovery"],
      [["--permission-prompt-tool", "mcp__perm__ask"], "use canUseTool"],
      [["--initialize-fields", "settings"], "--initialize-fields settings is not supported"],
      [["--no-session-persistence", "--continue"], "--no-session-persistence cannot be used with --resume or --continue"],
    ]
    const { server, env } = openai([])
    for (const [flags, said] of cases) {
      const r = await runBinary([...host, ...flags], { cwd: project({}), env, stdin: userLine("hi") })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(said)
      expect(r.stdout).toBe("")
    }
    expect(server.requests.length).toBe(0)
  })

  test("in print mode with one prompt, structured output and partial messages need the host protocol: a usage error", async () => {
    for (const flags of [["--json-schema", '{"type":"object"}'], ["--include-partial-messages", "--output-format", "stream-json", "--verbose"]]) {
      const r = await runBinary(["-p", "hi", ...flags], { cwd: project({}), env: { HOME: home() } })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain("needs --input-format stream-json and --output-format stream-json")
    }
  })
})

describe("flags the SDK passes are acted on", () => {
  test("a flag's value is never read as the prompt (--initialize-fields disallowedTools, which the SDK passes before the prompt)", async () => {
    const { server, env } = openai([{ text: "ok" }])
    const r = await runBinary(["-p", "--initialize-fields", "disallowedTools", "the prompt", "--output-format", "json", "--model", "openai/gpt-test"], { cwd: project({}), env })
    expect(JSON.parse(r.stdout).result).toBe("ok")
    const sent = server.requests[0]!.body.messages
    expect(sent.at(-1)).toEqual({ role: "user", content: "the prompt" })
  })

  test("--strict-mcp-config starts only the --mcp-config servers: the user's anvil.json servers are left out", async () => {
    const config = { mcpServers: { mine: { command: "/nonexistent/mcp-server" } } }
    const given = JSON.stringify({ mcpServers: { given: { command: "/nonexistent/other-server" } } })
    const servers = async (strict: ReadonlyArray<string>) => {
      const { env } = openai([{ text: "ok" }], config)
      const r = await runBinary([...host, "--mcp-config", given, ...strict], { cwd: project({}), env, stdin: userLine("hi") })
      const init = lines(r.stdout).find((m) => m.subtype === "init")
      return init.mcp_servers.map((s: { name: string }) => s.name).sort()
    }
    expect(await servers([])).toEqual(["given", "mine"])
    expect(await servers(["--strict-mcp-config"])).toEqual(["given"])
  })

  test("--no-session-persistence keeps no session file: the session cannot be resumed", async () => {
    const { env } = openai([{ text: "kept" }, { text: "not kept" }, { text: "resumed" }])
    const root = project({})
    const run = (flags: ReadonlyArray<string>) => runBinary(["-p", "hi", "--output-format", "json", "--model", "openai/gpt-test", ...flags], { cwd: root, env })
    const kept = JSON.parse((await run([])).stdout).session_id
    const gone = JSON.parse((await run(["--no-session-persistence"])).stdout).session_id
    const refused = await run(["--resume", gone])
    expect(refused.code).toBe(3)
    expect(refused.stderr).toContain(gone)
    expect(JSON.parse((await run(["--resume", kept])).stdout).result).toBe("resumed")
  })

  test("print mode honours --agents and --setting-sources as the host does", async () => {
    const { server, env } = openai([{ text: "ok" }])
    const root = project({ "CLAUDE.md": "CLAUDE-MD-MARK\n" })
    const agents = JSON.stringify({ reviewer: { description: "reviews diffs", prompt: "You review." } })
    await runBinary(["-p", "hi", "--output-format", "json", "--model", "openai/gpt-test", "--agents", agents, "--setting-sources", "user"], { cwd: root, env })
    const system = server.requests[0]!.body.messages[0].content
    expect(system).toContain("- reviewer: reviews diffs")
    expect(system).not.toContain("CLAUDE-MD-MARK")
  })
})
