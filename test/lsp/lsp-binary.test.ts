import { jsonLines, toolResults } from "../support/anvil-cli.ts"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fakeOpenAI } from "../support/fake-openai.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { project, tempDir } from "../support/harness.ts"
import { fullPath, npmOnlyPath, processesIn, requireServers } from "./support.ts"

// Real language servers through the compiled binary. Each `anvil tool` call
// starts its server and stops it on exit; the agent-session case shares one.
setDefaultTimeout(90_000)

const repo = join(import.meta.dir, "..", "..")
let binary = ""
const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

beforeAll(() => {
  requireServers()
  binary = join(tempDir("anvil-lsp-build-"), "anvil")
  const build = Bun.spawnSync([process.execPath, "build.ts", "--outfile", binary], { cwd: repo, stdout: "pipe", stderr: "pipe" })
  if (build.exitCode !== 0) throw new Error(`build.ts failed:\n${build.stdout}${build.stderr}`)
}, 90_000)

const PY_A = 'import os\n\n\ndef helper(x):\n    """Doubles x, the helper\'s docstring."""\n    return x * 2\n\n\nprint(undefined_name)\n'
const PY_B = "from a import helper\n\nvalue = helper(3)\nprint(value)\n"
const SH = '#!/bin/bash\nfile=$1\nrm $file\n'

const tool = async (root: string, name: string, params: unknown, path = fullPath()) => {
  const proc = Bun.spawn([binary, "tool", name, JSON.stringify(params)], {
    cwd: root,
    env: { PATH: path, HOME: root, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  let envelope: any
  try {
    envelope = JSON.parse(out)
  } catch {
    throw new Error(`not an envelope (exit ${code}):\n${out}\n${err}`)
  }
  return { code, envelope, err }
}

/** `anvil run --format stream-json` against a fake model server, all servers on PATH. */
const startRun = (root: string, server: FakeServer, args: ReadonlyArray<string>) =>
  Bun.spawn([binary, "run", "--format", "stream-json", ...args], {
    cwd: root,
    env: { PATH: fullPath(), HOME: root, NO_COLOR: "1", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  })

describe("LSP tools on real servers (compiled binary)", () => {
  test("diagnostics, definition, hover, after-edit errors and the degraded answer; no server left after exit", async () => {
    const root = project({ "a.py": PY_A, "b.py": PY_B, "run.sh": SH, "clean.py": "x = 1\nprint(x)\n", "main.rs": "fn main() {}\n" })

    // Python through pylsp (the default): an undefined name is an error, with 1-based positions.
    const py = await tool(root, "lsp_diagnostics", { path: "a.py" })
    expect(py.envelope.status).toBe("success")
    expect(py.envelope.data).toMatchObject({ server: "pylsp", language: "python", freshness: "current", clean: false })
    const undefinedName = py.envelope.data.diagnostics.find((d: any) => d.message.includes("undefined_name"))
    expect(undefinedName).toMatchObject({ severity: "error", line: 9, character: 7, end_line: 9, source: "pyflakes" })
    expect(undefinedName.end_character).toBeGreaterThan(7)
    expect(py.envelope.text).toContain("a.py:9:7: error: undefined name 'undefined_name'")
    expect(py.envelope.text).toContain("freshness: current")

    const clean = await tool(root, "lsp_diagnostics", { path: "clean.py" })
    expect(clean.envelope.data).toMatchObject({ freshness: "current", clean: true, diagnostics: [] })
    expect(clean.envelope.text).toContain("the file is clean")

    // Shell through bash-language-server + shellcheck: an unquoted variable is SC2086.
    const sh = await tool(root, "lsp_diagnostics", { path: "run.sh" })
    expect(sh.envelope.data).toMatchObject({ server: "bash-language-server", language: "shell", freshness: "current" })
    const sc2086 = sh.envelope.data.diagnostics.filter((d: any) => d.code === "SC2086")
    expect(sc2086.map((d: any) => [d.line, d.character])).toEqual([[3, 4]])
    expect(sh.envelope.text).toContain("run.sh:3:4:")

    // Definition across two files, with the defining line's text.
    const def = await tool(root, "lsp_definition", { path: "b.py", line: 3, character: 10 })
    expect(def.envelope.status).toBe("success")
    expect(def.envelope.data.location).toMatchObject({ path: "a.py", line: 4, character: 5, text: "def helper(x):" })
    expect(def.envelope.data.symbol).toBe("helper")
    expect(def.envelope.text).toContain("a.py:4:5: def helper(x):")

    // Hover shows the docstring as Markdown.
    const hover = await tool(root, "lsp_hover", { path: "b.py", line: 3, character: 9 })
    expect(hover.envelope.data.contents).toContain("Doubles x, the helper's docstring.")
    expect(hover.envelope.data.contents).toContain("helper(x)")

    // Positions outside the file are a precise INVALID_PARAM.
    const outside = await tool(root, "lsp_hover", { path: "b.py", line: 40, character: 1 })
    expect(outside.envelope.error).toMatchObject({ code: "INVALID_PARAM", field_errors: [{ field: "line" }] })
    expect(outside.envelope.error.message).toContain("it has 4 lines") // as read counts them: the final line break adds none

    // An edit that breaks the file reports the new error in the edit's own answer.
    const edit = await tool(root, "edit", { path: "b.py", old_string: "print(value)", new_string: "print(valeu)" })
    expect(edit.envelope.status).toBe("success")
    expect(readFileSync(join(root, "b.py"), "utf8")).toContain("valeu")
    expect(edit.envelope.text).toContain("pylsp reports 1 error in b.py after this change:")
    expect(edit.envelope.text).toContain("b.py:4:7: error: undefined name 'valeu'")
    expect(edit.envelope.data.lsp).toEqual([
      expect.objectContaining({ path: "b.py", server: "pylsp", freshness: "current", errors: 1 }),
    ])
    // patch (and multiedit) go through the same check: a new file with an error.
    const patched = await tool(root, "patch", {
      patch: "--- /dev/null\n+++ b/c.py\n@@ -0,0 +1,2 @@\n+import a\n+a.helper(missing)\n",
    })
    expect(patched.envelope.status).toBe("success")
    expect(patched.envelope.text).toContain("c.py:2:10: error: undefined name 'missing'")
    // A change of more files than are checked names the ones left, so each can be checked.
    const many = await tool(root, "patch", {
      patch: [1, 2, 3, 4, 5, 6].map((i) => `--- /dev/null\n+++ b/m${i}.py\n@@ -0,0 +1 @@\n+x${i} = ${i}\n`).join(""),
    })
    expect(many.envelope.text).toContain("Only the first 5 changed files were checked; 1 not checked (call lsp_diagnostics on each): m6.py.")
    expect(many.envelope.data.lsp).toContainEqual({ path: "m6.py", freshness: "not_checked" })
    // A write that leaves the file clean adds nothing to the text; off when configured off.
    const fixed = await tool(root, "write", { path: "b.py", content: PY_B })
    expect(fixed.envelope.text).not.toContain("error")
    expect(fixed.envelope.data.lsp).toEqual([expect.objectContaining({ errors: 0, freshness: "current" })])
    writeFileSync(join(root, "anvil.json"), '{ "lsp": { "after_edit": false } }\n')
    const quiet = await tool(root, "write", { path: "b.py", content: "print(nothing)\n" })
    expect(quiet.envelope.data.lsp).toBeUndefined()
    writeFileSync(join(root, "anvil.json"), "{}\n")

    // A language with no server: the degraded answer points at grep and read.
    const rs = await tool(root, "lsp_diagnostics", { path: "main.rs" })
    expect(rs.envelope.status).toBe("partial")
    expect(rs.envelope.data).toMatchObject({ freshness: "no_provider", server: null })
    expect(rs.envelope.text).toContain("Grep(")
    expect(rs.envelope.text).toContain('"lsp"')

    expect(processesIn(root)).toEqual([])
  })

  test("read rules hold: a denied file is not asked about, a definition there is named without its line, a hover of its symbol is withheld", async () => {
    const root = project({ "a.py": PY_A, "b.py": PY_B, ".config/anvil/anvil.json": JSON.stringify({ permission: { read: { "a.py": "deny" } } }) })
    const refused = await tool(root, "lsp_diagnostics", { path: "a.py" })
    expect(refused.envelope.error.code).toBe("PERMISSION_DENIED")
    const definition = await tool(root, "lsp_definition", { path: "b.py", line: 3, character: 9 })
    expect(definition.envelope.data.location).toMatchObject({ path: "a.py", line: 4, text: null })
    expect(JSON.stringify(definition.envelope)).not.toContain("def helper")
    const hover = await tool(root, "lsp_hover", { path: "b.py", line: 3, character: 9 })
    expect(hover.envelope.data.withheld_from).toBe("a.py")
    expect(JSON.stringify(hover.envelope)).not.toContain("docstring")
    // A diagnostic that names the denied module is withheld and counted; the file's own are shown.
    writeFileSync(join(root, "c.py"), "from a import helper\nprint(undefined_name)\n")
    const diagnostics = await tool(root, "lsp_diagnostics", { path: "c.py" })
    expect(diagnostics.envelope.data.withheld).toEqual({ count: 1, rules: [{ rule: `"read": {"a.py": "deny"}`, where: `${join(root, ".config/anvil/anvil.json")} (your own settings)` }] })
    expect(diagnostics.envelope.data.diagnostics.map((d: { message: string }) => d.message)).toEqual(["undefined name 'undefined_name'"])
    expect(diagnostics.envelope.text).toContain(`1 diagnostic not shown: it names or quotes a file that the rule "read": {"a.py": "deny"}`)
    expect(diagnostics.envelope.data.clean).toBe(false)
  })

  test("without pylsp, pyright answers; without any Python server, the install hint; without shellcheck, no false 'clean'", async () => {
    const root = project({ "a.py": PY_A, "run.sh": SH })
    const npmOnly = npmOnlyPath()
    const pyright = await tool(root, "lsp_diagnostics", { path: "a.py" }, npmOnly)
    expect(pyright.envelope.data).toMatchObject({ server: "pyright", freshness: "current" })
    expect(pyright.envelope.data.diagnostics).toContainEqual(
      expect.objectContaining({ severity: "error", line: 9, character: 7, message: '"undefined_name" is not defined' }),
    )

    // Characters outside the BMP count 1 for the model and 2 for the server: the column is converted both ways.
    writeFileSync(join(root, "u.py"), 'label = "😀😀"; total = 1\nprint(label, "😀", totl, total)\n')
    const unicode = await tool(root, "lsp_diagnostics", { path: "u.py" }, npmOnly)
    expect(unicode.envelope.data.diagnostics).toEqual([expect.objectContaining({ line: 2, character: 19, end_character: 23 })])
    const total = await tool(root, "lsp_definition", { path: "u.py", line: 2, character: 26 }, npmOnly)
    expect(total.envelope.data.location).toMatchObject({ path: "u.py", line: 1, character: 15, text: 'label = "😀😀"; total = 1' })

    const none = await tool(root, "lsp_definition", { path: "a.py", line: 9, character: 8 }, "/nonexistent")
    expect(none.envelope.status).toBe("partial")
    expect(none.envelope.data).toMatchObject({ freshness: "no_provider", language: "python" })
    expect(none.envelope.text).toContain("No python language server is installed (looked for pylsp, pyright-langserver, basedpyright-langserver")
    expect(none.envelope.text).toContain("Install one: apt-get install python3-pylsp")

    const noShellcheck = await tool(root, "lsp_diagnostics", { path: "run.sh" }, npmOnly)
    expect(noShellcheck.envelope.status).toBe("partial")
    expect(noShellcheck.envelope.data).toMatchObject({ clean: false, missing_helpers: [expect.objectContaining({ name: "shellcheck" })] })
    expect(noShellcheck.envelope.text).toContain("shellcheck is not installed")
    expect(noShellcheck.envelope.text).toContain("an empty list does not mean the file is clean")
    expect(processesIn(root)).toEqual([])
  })

  test("anvil.json adds a language and disables one; a server that cannot start is a clear error", async () => {
    const root = project({ "a.py": PY_A, "tool.pyx": "print(undefined_name)\n", "x.broken": "x\n" })
    writeFileSync(
      join(root, "anvil.json"),
      JSON.stringify({
        lsp: {
          cython: { command: ["pylsp"], extensions: [".pyx"], languageId: "python" },
          broken: { command: "sh", args: ["-c", "echo cannot start >&2; exit 3"], extensions: ["broken"] },
          python: { disabled: true },
        },
      }),
    )
    // A command the project's own anvil.json names starts only once trusted: until then nothing runs and the answer says why.
    const untrusted = await tool(root, "lsp_diagnostics", { path: "x.broken" })
    expect(untrusted.envelope.data).toMatchObject({ language: "broken", freshness: "no_provider", server: null })
    expect(untrusted.envelope.text).toContain(`sets lsp.broken.command: "sh", lsp.broken.args: ["-c","echo cannot start >&2; exit 3"]`)
    expect(untrusted.envelope.text).toContain("run 'anvil config trust'")
    const trust = Bun.spawnSync([binary, "config", "trust"], { cwd: root, env: { PATH: fullPath(), HOME: root } })
    expect(trust.stdout.toString()).toContain("Trusted for this project: lsp.cython.command, lsp.broken.command, lsp.broken.args")

    const added = await tool(root, "lsp_diagnostics", { path: "tool.pyx" })
    expect(added.envelope.data).toMatchObject({ language: "cython", server: "pylsp", freshness: "current" })
    expect(added.envelope.data.diagnostics[0]).toMatchObject({ severity: "error", line: 1, character: 7 })

    const disabled = await tool(root, "lsp_hover", { path: "a.py", line: 4, character: 5 })
    expect(disabled.envelope.data.freshness).toBe("no_provider")
    expect(disabled.envelope.text).toContain("disabled in anvil.json (lsp.python)")

    const broken = await tool(root, "lsp_diagnostics", { path: "x.broken" })
    expect(broken.envelope.status).toBe("error")
    expect(broken.envelope.error.code).toBe("EXECUTION_ERROR")
    expect(broken.envelope.error.message).toContain("sh did not start")
    expect(broken.envelope.error.message).toContain("cannot start")
    expect(broken.envelope.error.message).toContain("exited with code 3 before answering initialize")
    expect(processesIn(root)).toEqual([])
  })

  test("an agent session: diagnostics, a cross-file definition, a broken edit reported in the same turn, no server left behind", async () => {
    const root = project({ "a.py": PY_A, "b.py": PY_B })
    const server = fakeOpenAI([
      {
        tool_calls: [
          { name: "lsp_diagnostics", arguments: { path: "a.py" }, id: "d1" },
          { name: "lsp_definition", arguments: { path: "b.py", line: 3, character: 9 }, id: "d2" },
          { name: "read", arguments: { path: "b.py" }, id: "r1" },
        ],
      },
      { tool_calls: [{ name: "edit", arguments: { path: "b.py", old_string: "helper(3)", new_string: "helpr(3)" }, id: "e1" }] },
      { tool_calls: [{ name: "lsp_diagnostics", arguments: { path: "b.py" }, id: "d3" }] },
      { text: "done" },
    ])
    servers.push(server)
    const proc = startRun(root, server, ["--allow", "edit", "check the code"])
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    expect({ code, err }).toEqual({ code: 0, err: "" })
    const results = toolResults(jsonLines(out))
    const byId = Object.fromEntries(results.map((r) => [r.id, r.envelope]))
    expect(byId.d1.data.freshness).toBe("current")
    expect(byId.d2.data.location).toMatchObject({ path: "a.py", line: 4 })
    expect(byId.e1.text).toContain("b.py:3:9: error: undefined name 'helpr'")
    expect(byId.d3.data.diagnostics).toContainEqual(expect.objectContaining({ severity: "error", line: 3, character: 9 }))
    expect(processesIn(root)).toEqual([])
  })

  test.each(["SIGTERM", "SIGKILL"] as const)("anvil ended by %s mid-session leaves no server running", async (signal) => {
    const root = project({ "a.py": PY_A })
    const server = fakeOpenAI([{ tool_calls: [{ name: "lsp_diagnostics", arguments: { path: "a.py" }, id: "d1" }] }, { delay_ms: 20_000, text: "late" }])
    servers.push(server)
    const proc = startRun(root, server, ["check a.py"])
    // Wait for the tool result: the server is running and idle, the model request pending.
    const reader = proc.stdout.getReader()
    let seen = ""
    while (!seen.includes('"tool_result"')) {
      const chunk = await reader.read()
      if (chunk.done) break
      seen += new TextDecoder().decode(chunk.value)
    }
    expect(seen).toContain('"freshness":"current"')
    expect(processesIn(root).length).toBeGreaterThan(0)
    proc.kill(signal)
    expect(await proc.exited).toBe(signal === "SIGTERM" ? 143 : 137)
    // The server ends with anvil (managed processes are ended on exit; a server also exits when its stdin closes).
    for (let i = 0; i < 50 && processesIn(root).length > 0; i++) await Bun.sleep(100)
    expect(processesIn(root)).toEqual([])
  })
})
