import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { LspEngine } from "../../src/lsp/engine.ts"
import { fromLspPosition, lspLines, toLspPosition } from "../../src/lsp/positions.ts"
import { DEFAULT_LANGUAGES, findProgram, languageFor, languagesFromConfig } from "../../src/lsp/servers.ts"
import { project, tempDir } from "../support/harness.ts"
import { fullPath, processesIn, requireServers } from "./support.ts"

setDefaultTimeout(60_000)

const settings = { idleMs: 60_000, maxRestarts: 2, diagnosticsWaitMs: 10_000, requestTimeoutMs: 15_000, startTimeoutMs: 15_000 }
const engineFor = (root: string, section: Record<string, unknown> = {}, overrides: Partial<typeof settings> = {}) =>
  new LspEngine(root, { PATH: fullPath() }, section, { ...settings, ...overrides }, true, (p) => p.slice(root.length + 1))

describe("positions: 1-based characters as the model sees them ↔ LSP UTF-16", () => {
  const lines = lspLines("a = '😀é'; b\r\nsecond\rthird")
  test("astral characters count 1 for the model and 2 in UTF-16; \\r\\n and \\r end lines", () => {
    expect(lines).toEqual(["a = '😀é'; b", "second", "third"])
    expect(toLspPosition(lines, 1, 7)).toEqual({ line: 0, character: 7 }) // after the emoji (2 units)
    expect(toLspPosition(lines, 1, 12)).toEqual({ line: 0, character: 12 })
    expect(fromLspPosition(lines, { line: 0, character: 12 })).toEqual({ line: 1, character: 12 })
    expect(fromLspPosition(lines, { line: 0, character: 7 })).toEqual({ line: 1, character: 7 })
    expect(toLspPosition(lines, 3, 6)).toEqual({ line: 2, character: 5 }) // end of line is allowed
  })
  test("outside the file: the field and the real size are named", () => {
    expect(() => toLspPosition(lines, 4, 1)).toThrow("it has 3 lines")
    expect(() => toLspPosition(lines, 1, 13)).toThrow("it has 11 characters")
    expect(() => toLspPosition(lines, 0, 1)).toThrow("lines start at 1")
    // A final line break ends the last line; it does not start one more (read says "of 2 lines" too).
    expect(() => toLspPosition(lspLines("one\ntwo\n"), 9, 1)).toThrow("it has 2 lines")
  })
})

describe("finding a server program", () => {
  test("never inside the project (its node_modules/.bin, a PATH folder in it or linked into it, a relative PATH folder): a repository or a confined command could have put it there; outside on PATH it is found; a path given names it", () => {
    const root = project({})
    const outside = tempDir("anvil-lsp-bin-")
    const plant = (dir: string) => {
      mkdirSync(dir, { recursive: true })
      writeFileSync(join(dir, "bash-language-server"), "#!/bin/sh\nexit 1\n")
      chmodSync(join(dir, "bash-language-server"), 0o755)
    }
    for (const d of [join(root, "node_modules", ".bin"), join(root, "bin")]) plant(d)
    symlinkSync(join(root, "bin"), join(outside, "linked-in"))
    const path = [join(root, "bin"), join(outside, "linked-in"), "bin", "node_modules/.bin", "."].join(":")
    expect(findProgram("bash-language-server", { PATH: path }, root)).toBeUndefined()
    plant(join(outside, "real"))
    expect(findProgram("bash-language-server", { PATH: `${path}:${join(outside, "real")}` }, root)).toBe(join(outside, "real", "bash-language-server"))
    expect(findProgram(join(root, "bin", "bash-language-server"), { PATH: "" }, root)).toBe(join(root, "bin", "bash-language-server"))
  })
})

describe("languages: defaults, anvil.json and #! lines", () => {
  test("extension first, then the interpreter of a #! line", () => {
    expect(languageFor(DEFAULT_LANGUAGES, "/p/x.BASH", undefined)?.id).toBe("shell")
    expect(languageFor(DEFAULT_LANGUAGES, "/p/tool", "#!/usr/bin/env python3")?.id).toBe("python")
    expect(languageFor(DEFAULT_LANGUAGES, "/p/deploy", "#!/bin/bash -e")?.id).toBe("shell")
    expect(languageFor(DEFAULT_LANGUAGES, "/p/notes", "plain text")).toBeUndefined()
  })
  test("override fields, add a language, report broken entries", () => {
    const { languages, problems } = languagesFromConfig({
      after_edit: false,
      python: { command: "pyright-langserver", args: ["--stdio"], env: { A: "1" } },
      go: { command: ["gopls"], extensions: ["go"], rootMarkers: ["go.mod"] },
      rust: { extensions: [".rs"] },
      zig: "zls",
    })
    const python = languages.find((l) => l.id === "python")!
    expect(python.servers).toEqual([expect.objectContaining({ command: "pyright-langserver", args: ["--stdio"], env: { A: "1" } })])
    expect(python.extensions).toEqual([".py", ".pyi"])
    expect(languages.find((l) => l.id === "go")).toMatchObject({ extensions: [".go"], rootMarkers: ["go.mod"] })
    expect(problems).toEqual([
      'lsp.rust adds a language, so it needs "command" and "extensions".',
      expect.stringContaining("lsp.zig must be an object"),
    ])
  })
})

describe("server roots", () => {
  test("the nearest folder inside the project with a root marker, else the project root", () => {
    const root = project({ "svc/pyproject.toml": "", "svc/pkg/m.py": "", "top.py": "", "run.sh": "" })
    const engine = engineFor(root)
    const python = engine.languages.find((l) => l.id === "python")!
    const shell = engine.languages.find((l) => l.id === "shell")!
    expect(engine.pool.rootFor(python, join(root, "svc/pkg/m.py"))).toBe(join(root, "svc"))
    expect(engine.pool.rootFor(python, join(root, "top.py"))).toBe(root)
    expect(engine.pool.rootFor(shell, join(root, "svc/run.sh"))).toBe(root)
  })
})

describe("the pool on a real server", () => {
  test("a crashed server is started again on the next call; past the limit it is reported; close leaves nothing", async () => {
    requireServers()
    const root = project({ "a.py": "print(nope)\n" })
    const file = join(root, "a.py")
    const engine = engineFor(root)
    const first = await engine.diagnostics(file, "print(nope)\n")
    expect(first).toMatchObject({ kind: "served", server: "pylsp", freshness: "current" })
    const [running] = engine.pool.list()
    expect(running).toMatchObject({ name: "pylsp", root })
    // Later calls in the session reuse the running server.
    await engine.atPosition(file, "print(nope)\n", 1, 1, "textDocument/hover")
    expect(engine.pool.list()).toEqual([running!])
    process.kill(running!.pid, "SIGKILL")
    await Bun.sleep(200)
    const again = await engine.diagnostics(file, "print(nope2)\n")
    expect(again).toMatchObject({ freshness: "current", diagnostics: [expect.objectContaining({ message: "undefined name 'nope2'" })] })
    const restarted = engine.pool.list()[0]!
    expect(restarted.pid).not.toBe(running!.pid)
    // Crash it past the limit (2 restarts): the third crash is reported, not retried.
    process.kill(restarted.pid, "SIGKILL")
    await Bun.sleep(200)
    await engine.diagnostics(file, "print(nope3)\n")
    process.kill(engine.pool.list()[0]!.pid, "SIGKILL")
    await Bun.sleep(200)
    // Answered as when no server serves the language, naming the crashes (the tools say how to see its log).
    const refused = await engine.diagnostics(file, "print(nope4)\n")
    expect(refused).toMatchObject({ kind: "no_provider", language: "python", crashed: { server: "pylsp", crashes: 3, maxRestarts: 2, lastFailure: "SIGKILL" } })
    expect((refused as { crashed: { command: string } }).crashed.command).toEndWith("pylsp")
    await engine.close()
    expect(processesIn(root)).toEqual([])
  })

  test("an idle server is stopped and started again when needed", async () => {
    requireServers()
    const root = project({ "a.py": "x = 1\n" })
    writeFileSync(join(root, "b.py"), "y = x\n")
    const engine = engineFor(root, {}, { idleMs: 300 })
    await engine.diagnostics(join(root, "a.py"), "x = 1\n")
    expect(engine.pool.list()).toHaveLength(1)
    await Bun.sleep(1500)
    expect(engine.pool.list()).toHaveLength(0)
    expect(processesIn(root)).toEqual([])
    const later = await engine.diagnostics(join(root, "b.py"), "y = x\n")
    expect(later).toMatchObject({ freshness: "current", diagnostics: [expect.objectContaining({ severity: "error" })] })
    await engine.close()
    expect(processesIn(root)).toEqual([])
  })
})

describe("freshness with a scripted server", () => {
  const scripted = (mode: string) => ({ scripted: { command: [process.execPath, join(import.meta.dir, "scripted-server.ts"), mode], extensions: [".x"], name: "scripted" } })

  test("pull diagnostics answer for the current text; a server that stopped pushing gives stale, one that never answered pending", async () => {
    const root = project({ "a.x": "one\n" })
    const file = join(root, "a.x")
    const pull = engineFor(root, scripted("pull"), { diagnosticsWaitMs: 300 })
    expect(await pull.diagnostics(file, "one\n")).toMatchObject({ mode: "pull", freshness: "current", diagnostics: [{ message: "saw: one", line: 1, code: "7" }] })
    expect(await pull.diagnostics(file, "two\n")).toMatchObject({ freshness: "current", diagnostics: [{ message: "saw: two" }] })
    await pull.close()

    const pushOnce = engineFor(root, scripted("push-once"), { diagnosticsWaitMs: 300 })
    expect(await pushOnce.diagnostics(file, "one\n")).toMatchObject({ mode: "push", freshness: "current", diagnostics: [{ message: "saw: one" }] })
    const stale = await pushOnce.diagnostics(file, "two\n")
    expect(stale).toMatchObject({ freshness: "stale", diagnostics: [{ message: "saw: one" }] })
    expect((stale as { ageMs: number }).ageMs).toBeGreaterThanOrEqual(300)
    await pushOnce.close()

    const silent = engineFor(root, scripted("silent"), { diagnosticsWaitMs: 300, requestTimeoutMs: 300 })
    expect(await silent.diagnostics(file, "one\n")).toMatchObject({ freshness: "pending", diagnostics: [] })
    const late = await silent.atPosition(file, "one\n", 1, 1, "textDocument/hover").catch((e) => e)
    expect([late._tag, late.timedOut, late.message]).toEqual(["LspRequestError", true, "scripted did not answer textDocument/hover within 300 ms."])
    await silent.close()
    expect(processesIn(root)).toEqual([])
  })

  test("a server that prints on stdout between its messages is still understood; diagnostics not in LSP's shape are left out and counted; a crash names its stderr", async () => {
    const root = project({ "a.x": "one\n" })
    const file = join(root, "a.x")
    const chatty = engineFor(root, scripted("chatty"), { requestTimeoutMs: 5000, startTimeoutMs: 5000 })
    expect(await chatty.diagnostics(file, "one\n")).toMatchObject({ freshness: "current", dropped: 0, diagnostics: [{ message: "saw: one" }] })
    expect(await chatty.diagnostics(file, "two\n")).toMatchObject({ freshness: "current", diagnostics: [{ message: "saw: two" }] })
    await chatty.close()

    const broken = engineFor(root, scripted("broken"))
    const answer = await broken.diagnostics(file, "one\n")
    expect(answer).toMatchObject({ freshness: "current", dropped: 2, diagnostics: [{ message: "saw: one", code: "7" }, { message: "saw: one", severity: "error", code: null }] })
    await broken.close()

    const dies = engineFor(root, scripted("dies"))
    const died = await dies.diagnostics(file, "one\n").catch((e) => e)
    expect(died.message).toBe("scripted exited with code 9 before answering textDocument/diagnostic. Its stderr ends: Traceback: KeyError: 'uri'")
    await dies.close()
    expect(processesIn(root)).toEqual([])
  })

  test("a server that cannot start: the start that uses up lsp.max_restarts says it is the last; then the no-provider answer names the crashes", async () => {
    const root = project({ "a.x": "one\n" })
    const file = join(root, "a.x")
    const section = { scripted: { command: [process.execPath, "-e", "console.error('no licence'); process.exit(3)"], extensions: [".x"], name: "scripted" } }
    const engine = engineFor(root, section, { maxRestarts: 1, startTimeoutMs: 5000 })
    const first = await engine.diagnostics(file, "one\n").catch((e) => e)
    expect([first._tag, first.message]).toEqual(["LspStartError", "scripted did not start: scripted exited with code 3 before answering initialize. Its stderr: no licence"])
    const last = await engine.diagnostics(file, "one\n").catch((e) => e)
    expect(last.message).toBe("scripted did not start: scripted exited with code 3 before answering initialize. Its stderr: no licence It failed 2 times, more than lsp.max_restarts (1) allows: it is not started again in this session.")
    expect(await engine.diagnostics(file, "one\n")).toMatchObject({ kind: "no_provider", crashed: { server: "scripted", crashes: 2, maxRestarts: 1, stderr: "no licence" } })
    await engine.close()
    expect(processesIn(root)).toEqual([])
  })

  test("a definition or hover waits for the server's first analysis of the file: a half-loaded project answers wrongly", async () => {
    const root = project({ "a.x": "one\n" })
    const engine = engineFor(root, scripted("loading"))
    const hover = await engine.atPosition<{ contents: { value: string } }>(join(root, "a.x"), "one\n", 1, 1, "textDocument/hover")
    expect(hover).toMatchObject({ result: { contents: { value: "**loaded**" } } })
    await engine.close()
    expect(processesIn(root)).toEqual([])
  })

  test("the install hint is given in full once per session and language", async () => {
    const root = project({ "a.py": "x\n", "b.py": "y\n" })
    const engine = new LspEngine(root, { PATH: "/nonexistent" }, {}, settings, true, (p) => p)
    const first = await engine.diagnostics(join(root, "a.py"), "x\n")
    const second = await engine.diagnostics(join(root, "b.py"), "y\n")
    expect(first).toMatchObject({ kind: "no_provider", language: "python", firstHint: true })
    expect(second).toMatchObject({ kind: "no_provider", firstHint: false })
  })
})
