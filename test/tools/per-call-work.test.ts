import { afterEach, describe, expect, spyOn, test } from "bun:test"
import { Effect } from "effect"
import * as nodeFs from "node:fs"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import * as parse from "../../src/patch/parse.ts"
import * as protectedPaths from "../../src/sandbox/protected-paths.ts"
import { callTool, project, session } from "../support/harness.ts"
import { gitHome, gitRepo } from "../support/git-repo.ts"

// Work a call repeats for each of its steps (precheck, permission question, run) or for each path it names is done
// once per call, and never carried into the next call: the answers stay those of a fresh look.

const spies: Array<{ mockRestore: () => void }> = []
const spy = <T extends object, K extends keyof T>(module: T, name: K) => {
  const s = spyOn(module, name as never) as unknown as { mock: { calls: Array<unknown> }; mockRestore: () => void }
  spies.push(s)
  return s
}
afterEach(() => {
  for (const s of spies.splice(0)) s.mockRestore()
})

const patchOf = (files: number) =>
  Array.from({ length: files }, (_, k) => `--- a/f${k}.txt\n+++ b/f${k}.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n`).join("")

describe("per-call work", () => {
  test("a patch is parsed once and the protected paths are found once, however many files it names", async () => {
    const root = project(Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`f${k}.txt`, "a\nb\nc\n"])))
    const parses = spy(parse, "parsePatch")
    const finds = spy(protectedPaths, "projectProtection")
    const { envelope } = await callTool(root, "patch", { patch: patchOf(8) })
    expect(envelope.status).toBe("success")
    expect(parses.mock.calls.length).toBe(1)
    expect(finds.mock.calls.length).toBe(1)
  })

  test("edit, write and multiedit find the protected paths once for precheck and run", async () => {
    const root = project({ "a.txt": "one\n" })
    const finds = spy(protectedPaths, "projectProtection")
    expect((await callTool(root, "edit", { path: "a.txt", old_string: "one", new_string: "two" })).envelope.status).toBe("success")
    expect((await callTool(root, "multiedit", { path: "a.txt", edits: [{ old_string: "two", new_string: "three" }] })).envelope.status).toBe("success")
    expect((await callTool(root, "write", { path: "b.txt", content: "x\n" })).envelope.status).toBe("success")
    expect(finds.mock.calls.length).toBe(3)
  })

  test("each call of a session looks afresh: a hook manager's file added between calls is protected in the next", async () => {
    const root = project({ "a.txt": "one\n" })
    const s = session(root)
    expect((await s.call("write", { path: "lefthook-local.yml", content: "a: 1\n" })).envelope.status).toBe("success")
    writeFileSync(join(root, "lefthook.yml"), "pre-commit: {}\n")
    const refused = await s.call("edit", { path: "lefthook-local.yml", old_string: "1", new_string: "2" })
    expect(refused.envelope.error?.code).toBe("ACCESS_DENIED")
    expect(refused.envelope.error?.message).toContain("lefthook-local.yml is a protected path: ")
    const patched = await s.call("patch", { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n--- a/lefthook-local.yml\n+++ b/lefthook-local.yml\n@@ -1 +1 @@\n-a: 1\n+a: 2\n" })
    expect(patched.envelope.error?.code).toBe("ACCESS_DENIED")
  })

  test("protection that appears while the user decides holds for the call asked about, not only for the next", async () => {
    const root = project({ "scripts/hooks/pre-commit": "#!/bin/sh\nexit 0\n" })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    // While the person takes their time, git is pointed at scripts/hooks: its files now run at the next commit.
    const onAsk = () => Effect.sync(() => (Bun.spawnSync(["git", "config", "core.hooksPath", "scripts/hooks"], { cwd: root }), "once" as const))
    const refused = await callTool(root, "edit", { path: "scripts/hooks/pre-commit", old_string: "exit 0", new_string: "exit 1" }, { onAsk })
    expect(refused.envelope.error?.code).toBe("ACCESS_DENIED")
    expect(refused.envelope.error?.message).toContain("is a protected path (scripts/hooks/)")
    // Asking nobody (anvil tool: the command line approves) looks once, as before.
    const finds = spy(protectedPaths, "projectProtection")
    expect((await callTool(root, "write", { path: "b.txt", content: "x\n" })).envelope.status).toBe("success")
    expect(finds.mock.calls.length).toBe(1)
  })

  test("git_status reads the repository's git config once (its settings and the sparse-checkout check share it)", async () => {
    const home = gitHome()
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
    writeFileSync(join(root, "b.txt"), "b\n")
    const reads = spy(nodeFs, "readFileSync")
    const { envelope } = await callTool(root, "git_status", {}, { env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" } })
    expect(envelope.status).toBe("success")
    expect((envelope.data as { content: string }).content).toContain("b.txt")
    const configReads = reads.mock.calls.filter((args) => String((args as Array<unknown>)[0]).endsWith(`${join(root, ".git")}/config`))
    expect(configReads.length).toBe(1)
  })

  test("read takes a small file from the bytes it sniffed: one read of the file for the window, its ending and the hash", async () => {
    const root = project({ "a.txt": "one\r\ntwo\nthree\n", "u16.txt": Buffer.from("\ufeffhi\nthere\n", "utf16le") })
    const s = session(root, { enforceReads: true })
    const reads = spy(nodeFs, "readSync")
    const whole = await s.call("read", { path: "a.txt" })
    expect(whole.envelope.data).toMatchObject({ line_ending: "mixed", total_lines: 3 })
    expect(reads.mock.calls.length).toBe(1)
    // The hash the ledger keeps is the file's: an edit that names it goes through without a new read.
    expect((await s.call("edit", { path: "a.txt", old_string: "two", new_string: "2" })).envelope.status).toBe("success")
    const utf16 = await s.call("read", { path: "u16.txt" })
    expect(utf16.envelope.data).toMatchObject({ encoding: "utf-16le" })
    expect((utf16.envelope.data as { content: string }).content).toContain("there")
  })

  test("a patch resolves each name once for its plan: the prefix check and the change share it", async () => {
    const root = project({ "f0.txt": "a\nb\nc\n", "f1.txt": "a\nb\nc\n" })
    const realpaths = spy(nodeFs, "realpathSync")
    const { envelope } = await callTool(root, "patch", { patch: patchOf(2) })
    expect(envelope.status).toBe("success")
    // Once for the precheck, once where the permission follows links, once for the plan.
    expect(realpaths.mock.calls.filter((args) => String((args as Array<unknown>)[0]) === join(root, "f0.txt")).length).toBe(3)
  })
})
