import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { jsonLines, runAnvil, toolResults } from "../support/anvil-cli.ts"
import { fakeAnthropic } from "../support/fake-anthropic.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// Each case starts the real CLI as a subprocess.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

const openai = (turns: ReadonlyArray<FakeTurn>) => {
  const server = fakeOpenAI(turns)
  servers.push(server)
  return { server, env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" } }
}

const offered = (server: FakeServer, i: number): Array<string> => server.requests[i]!.body.tools.map((t: any) => t.function?.name ?? t.name)
const loaderOf = (server: FakeServer, i: number): any => server.requests[i]!.body.tools.find((t: any) => (t.function?.name ?? t.name) === "load_tools")

describe("tools on demand", () => {
  test("rarely used tools are named by load_tools, join once loaded or called, and run when called unloaded", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { server, env } = openai([
      { tool_calls: [{ name: "load_tools", arguments: { names: ["git_status", "Calculator"] } }] },
      { tool_calls: [{ name: "calculator", arguments: { expression: "2+3" } }] },
      // Never loaded: still runs, and is offered from then on.
      { tool_calls: [{ name: "todoread", arguments: {} }] },
      { text: "done" },
    ])
    const r = await runAnvil(["run", "-f", "stream-json", "go"], { cwd: root, env })
    expect(r.code).toBe(0)
    const first = offered(server, 0)
    for (const core of ["read", "edit", "write", "grep", "glob", "bash", "patch", "list"]) expect(first).toContain(core)
    for (const later of ["git_status", "git_diff", "fetch", "calculator", "todoread", "lsp_hover", "multiedit"]) expect(first).not.toContain(later)
    const catalogue = loaderOf(server, 0).function.description
    for (const later of ["fetch", "calculator", "todoread"]) expect(catalogue).toContain(`- ${later}: `)
    // A family on one line, its prefix written once.
    expect(catalogue).toContain("- git_*: status: git status; diff: git diff; log: git log; add: git add; commit: git commit -m")
    expect(catalogue).toContain("- lsp_* (language server): diagnostics: ")
    expect(catalogue).not.toContain("- read: ")

    const results = toolResults(jsonLines(r.stdout))
    expect(results[0].envelope.data.loaded).toEqual(["git_status", "calculator"])
    expect(results[0].content).toContain("Loaded git_status, calculator")
    expect(results[1].envelope.data.result).toBe("5")
    expect(results[2].envelope.status).toBe("success")

    expect(offered(server, 1)).toEqual(expect.arrayContaining(["git_status", "calculator", "load_tools"]))
    expect(loaderOf(server, 1).function.description).toContain("- git_*: diff: git diff;")
    expect(loaderOf(server, 1).function.description).not.toContain("status: git status")
    expect(offered(server, 2)).not.toContain("todoread")
    expect(offered(server, 3)).toEqual(expect.arrayContaining(["git_status", "calculator", "todoread"]))
  })

  test("an unknown name is INVALID_PARAM listing what exists; the session goes on", async () => {
    const root = project({})
    const { server, env } = openai([{ tool_calls: [{ name: "load_tools", arguments: { names: ["nope"] } }] }, { text: "ok" }])
    const r = await runAnvil(["run", "-f", "stream-json", "go"], { cwd: root, env })
    expect(r.code).toBe(0)
    const [result] = toolResults(jsonLines(r.stdout))
    expect(result.envelope.error.code).toBe("INVALID_PARAM")
    expect(result.envelope.error.message).toContain("git_status")
    expect(offered(server, 1)).not.toContain("git_status")
  })

  test("tools.on_demand false offers every tool; tools.always_offer keeps the named ones in every request", async () => {
    const all = openai([{ text: "ok" }])
    const off = await runAnvil(["run", "go"], { cwd: project({ "anvil.json": JSON.stringify({ tools: { on_demand: false } }) }), env: all.env })
    expect(off.code).toBe(0)
    expect(offered(all.server, 0)).toEqual(expect.arrayContaining(["git_status", "fetch", "lsp_hover", "calculator", "multiedit"]))
    expect(offered(all.server, 0)).not.toContain("load_tools")

    const some = openai([{ text: "ok" }])
    const kept = await runAnvil(["run", "go"], { cwd: project({ "anvil.json": JSON.stringify({ tools: { always_offer: ["fetch", "GIT_DIFF"] } }) }), env: some.env })
    expect(kept.code).toBe(0)
    expect(offered(some.server, 0)).toEqual(expect.arrayContaining(["fetch", "git_diff", "load_tools"]))
    expect(offered(some.server, 0)).not.toContain("git_status")
  })

  test("the Anthropic provider and the ReAct engine see the same offer", async () => {
    const root = project({})
    const server = fakeAnthropic([{ tool_calls: [{ name: "load_tools", arguments: { names: ["fetch"] }, id: "toolu_1" }] }, { text: "ok" }])
    servers.push(server)
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "ak-test", ANVIL_MODEL: "anthropic/claude-test" }
    expect((await runAnvil(["run", "go"], { cwd: root, env })).code).toBe(0)
    expect(offered(server, 0)).not.toContain("fetch")
    expect(offered(server, 1)).toContain("fetch")

    const react = openai([{ text: 'Thought: need git.\nAction: load_tools[{"names": ["git_log"]}]' }, { text: "Thought: done.\nFinal Answer: ok" }])
    expect((await runAnvil(["run", "--engine", "react", "go"], { cwd: project({}), env: react.env })).code).toBe(0)
    const system = (i: number) => react.server.requests[i]!.body.messages[0].content as string
    expect(system(0)).toContain("### load_tools")
    expect(system(0)).toContain("- git_*: status: git status; diff: git diff; log: git log;")
    expect(system(0)).not.toContain("### git_log")
    expect(system(1)).toContain("### git_log")
  })

  test("anvil tool load_tools answers for any tool, like every other tool", async () => {
    const root = project({})
    const ok = await runAnvil(["tool", "load_tools", '{"names":["git_status","fetch"]}'], { cwd: root })
    expect(ok.code).toBe(0)
    const envelope = JSON.parse(ok.stdout)
    expect(envelope.data.loaded).toEqual(["git_status", "fetch"])
    expect(envelope.data.tools[0].description).toContain("git status")
    const bad = await runAnvil(["tool", "load_tools", '{"names":["nope"]}'], { cwd: root })
    expect(bad.code).toBe(1)
    expect(JSON.parse(bad.stdout).error.code).toBe("INVALID_PARAM")
  })
})
