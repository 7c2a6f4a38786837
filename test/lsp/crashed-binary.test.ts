import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, toolResults } from "../support/anvil-cli.ts"
import { runBinary } from "../support/anvil-binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { project, tempDir } from "../support/harness.ts"
import { processesIn } from "./support.ts"

// A language server that crashes on every request, in one `anvil run` session through the compiled binary: once it
// crashed past lsp.max_restarts, the LSP tools answer as when no server is configured (partial, no_provider), naming
// the crashes and how to see the server's log, and edits say they are not checked.
setDefaultTimeout(90_000)

const SCRIPTED = join(import.meta.dir, "scripted-server.ts")
const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

describe("a language server that keeps crashing", () => {
  test("past lsp.max_restarts: the no-provider answer with the crashes, the end of its stderr and its command; edits say they are not checked", async () => {
    const root = project({ "a.x": "one\n" })
    const home = tempDir("anvil-lsp-crash-home-")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    const scripted = { command: [process.execPath, SCRIPTED, "dies"], extensions: [".x"], name: "scripted" }
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ lsp: { max_restarts: 1, scripted } }))
    const diagnostics = (id: string) => ({ tool_calls: [{ id, name: "lsp_diagnostics", arguments: { path: "a.x" } }] })
    const hover = { tool_calls: [{ id: "h", name: "lsp_hover", arguments: { path: "a.x", line: 1, character: 1 } }] }
    const edit = { tool_calls: [{ id: "w", name: "write", arguments: { path: "b.x", content: "two\n" } }] }
    const server = fakeOpenAI([diagnostics("c1"), diagnostics("c2"), diagnostics("c3"), hover, edit, { text: "done" }])
    servers.push(server)
    const env = { HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const run = await runBinary(["run", "--format", "stream-json", "--yes", "check a.x"], { cwd: root, env })
    const results = toolResults(jsonLines(run.stdout)).map((r: any) => r.envelope)
    expect(results).toHaveLength(5)
    // The two crashes allowed (the first start and one restart) fail their calls, saying why; the second says
    // it used up the last start, so asking again will not help.
    const died = "scripted exited with code 9 before answering textDocument/diagnostic. Its stderr ends: Traceback: KeyError: 'uri'"
    expect(results[0].error).toEqual({ code: "EXECUTION_ERROR", message: died, retryable: true })
    expect(results[1].error).toEqual({
      code: "EXECUTION_ERROR",
      message: `${died} It failed 2 times, more than lsp.max_restarts (1) allows: it is not started again in this session.`,
      retryable: false,
    })
    const [given, hovered, written] = results.slice(2)
    expect(given.status).toBe("partial")
    expect(given.error).toBeUndefined()
    expect(given.data).toEqual({
      path: "a.x",
      freshness: "no_provider",
      language: "scripted",
      server: "scripted",
      crashed: { crashes: 2, max_restarts: 1, last_failure: "exit code 9; stderr: Traceback: KeyError: 'uri'", command: `${process.execPath} ${SCRIPTED} dies` },
      server_stderr: "Traceback: KeyError: 'uri'",
    })
    expect(given.text).toContain("The scripted language server scripted kept crashing: it failed 2 times (last: exit code 9; stderr: Traceback: KeyError: 'uri'), more than lsp.max_restarts (1) allows, so it is not started again in this session.")
    expect(given.text).toContain(`Its log: the end of its stderr is in data.server_stderr; to see more, run it by hand in the project: ${process.execPath} ${SCRIPTED} dies`)
    expect(given.text).toContain("lsp_diagnostics needs a language server; use grep to find symbols and read to look at the code meanwhile.")
    expect(hovered).toMatchObject({ status: "partial", data: { freshness: "no_provider", server: "scripted", crashed: { crashes: 2 } } })
    expect(written.status).toBe("success")
    expect(written.text).toContain(`Edits to b.x are not checked: scripted kept crashing (2 times) and is not started again in this session; lsp_diagnostics(path="b.x") says how to see its log.`)
    expect(processesIn(root)).toEqual([])
  })
})
