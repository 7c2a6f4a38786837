import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/anvil-binary.ts"
import { makeConfig } from "../../src/config/config.ts"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { loadPlugins, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { builtinTools, callTool, project, tempDir, writeTree } from "../support/harness.ts"

// The file tools hold the paths the command sandbox keeps read-only (sandbox/protected-paths.ts): what makes code
// run later is not changed by write, edit, multiedit or patch either, however the path is spelled.

const git = (root: string, ...args: Array<string>) =>
  execFileSync("git", args, { cwd: root, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" } })

const refusal = (envelope: { status: string; context?: Record<string, any>; error?: { code: string; message: string; field_errors?: ReadonlyArray<{ field: string; message: string }> } }, entry: string) => {
  expect(envelope.status).toBe("error")
  expect(envelope.error!.code).toBe("ACCESS_DENIED")
  // The entry is named after the path only when it is not the path itself: a path is never shown twice.
  const which = envelope.context!.path_resolved === entry ? "" : ` (${entry})`
  expect(envelope.error!.message).toContain(`is a protected path${which}:`)
  expect(envelope.error!.field_errors![0]!.message).toBe(`protected path${which}`)
  expect(envelope.context!.protected).toEqual({ entry, next_step: expect.stringContaining("the user") })
}

describe("file tools and protected paths", () => {
  test("write refuses every built-in protected path, in any case and through '..'; nothing is created", async () => {
    const root = project({ "src/a.ts": "x\n" })
    git(root, "init", "-q")
    const cases: ReadonlyArray<[string, string]> = [
      [".git/hooks/post-commit", ".git/hooks/"],
      [".GIT/HOOKS/post-commit", ".git/hooks/"],
      ["src/../.vscode/tasks.json", ".vscode/"],
      [".VSCode/settings.json", ".vscode/"],
      [".anvil/plugins/evil.ts", ".anvil/"],
      [".mcp.json", ".mcp.json"],
      [".claude/settings.json", ".claude/"],
      [".agents/skills/x/SKILL.md", ".agents/"],
    ]
    for (const [path, entry] of cases) {
      const { envelope } = await callTool(root, "write", { path, content: "touch /tmp/pwned\n" })
      if (path.startsWith(".git/")) expect(envelope.error?.code).toBe("ACCESS_DENIED")
      else refusal(envelope as never, entry)
    }
    for (const p of [".vscode", ".VSCode", ".mcp.json", ".claude", ".agents", ".anvil/plugins", ".GIT"]) expect(existsSync(join(root, p))).toBe(false)
    // The project's own anvil.json (the harness's marker) is protected too, and stays as it was.
    refusal((await callTool(root, "write", { path: "anvil.json", content: '{"sandbox": {"mode": "off"}}' })).envelope as never, "anvil.json")
    expect(readFileSync(join(root, "anvil.json"), "utf8")).toBe("{}\n")
    // The rest of the project is written as always.
    expect((await callTool(root, "write", { path: "src/b.ts", content: "y\n" })).envelope.status).toBe("success")
  })

  test("edit, multiedit and patch refuse them too, and a patch touching one changes nothing at all", async () => {
    const root = project({ ".vscode/settings.json": '{"a": 1}\n', ".claude/settings.json": "{}\n", "ok.txt": "hello\n" })
    refusal((await callTool(root, "edit", { path: ".vscode/settings.json", old_string: "1", new_string: "2" })).envelope as never, ".vscode/")
    refusal(
      (await callTool(root, "multiedit", { path: "anvil.json", edits: [{ old_string: "{}", new_string: '{"model": "x/y"}' }] })).envelope as never,
      "anvil.json",
    )
    const patch = ["--- a/ok.txt", "+++ b/ok.txt", "@@ -1 +1 @@", "-hello", "+bye", "--- /dev/null", "+++ b/.claude/hooks.json", "@@ -0,0 +1 @@", "+{}"].join("\n") + "\n"
    const patched = (await callTool(root, "patch", { patch })).envelope
    refusal(patched as never, ".claude/")
    expect(patched.error!.message).toContain("Nothing was changed.")
    expect(readFileSync(join(root, "ok.txt"), "utf8")).toBe("hello\n")
    // Removing or renaming one away is a change to it as well.
    const removal = ["--- a/.claude/settings.json", "+++ /dev/null", "@@ -1 +0,0 @@", "-{}"].join("\n") + "\n"
    refusal((await callTool(root, "patch", { patch: removal })).envelope as never, ".claude/")
    const rename = ["*** Begin Patch", "*** Update File: ok.txt", "*** Move to: .mcp.json", "@@", "-hello", "+{}", "*** End Patch"].join("\n")
    refusal((await callTool(root, "patch", { patch: rename })).envelope as never, ".mcp.json")
    expect(readFileSync(join(root, ".vscode/settings.json"), "utf8")).toBe('{"a": 1}\n')
    expect(existsSync(join(root, ".claude/hooks.json"))).toBe(false)
    expect(existsSync(join(root, ".mcp.json"))).toBe(false)
  })

  test("nobody is asked to approve a change no approval can make: the refusal comes before the permission question", async () => {
    const root = project({ "a.txt": "hello\n" })
    const asked: Array<string> = []
    const options = { configOverrides: { permission: { write: "ask", edit: "ask", patch: "ask" } }, onAsk: (r: { tool: { name: string } }) => Effect.sync(() => (asked.push(r.tool.name), true)) }
    refusal((await callTool(root, "write", { path: ".claude/settings.json", content: "{}" }, options as never)).envelope as never, ".claude/")
    refusal((await callTool(root, "edit", { path: "anvil.json", old_string: "{}", new_string: "[]" }, options as never)).envelope as never, "anvil.json")
    const patch = ["--- a/a.txt", "+++ b/.mcp.json", "@@ -1 +1 @@", "-hello", "+{}"].join("\n") + "\n"
    refusal((await callTool(root, "patch", { patch }, options as never)).envelope as never, ".mcp.json")
    expect(asked).toEqual([])
    // An ordinary change is still asked about.
    expect((await callTool(root, "write", { path: "b.txt", content: "x" }, options as never)).envelope.status).toBe("success")
    expect(asked).toEqual(["write"])
  })

  test("links: a link to a protected path, a dangling one, and the folder a protected link leads to are all refused", async () => {
    const root = project({
      ".claude/settings.json": "{}\n",
      "cfg": { link: ".claude" },
      "vs": { link: ".vscode/settings.json" },
      "editor/settings.json": "{}\n",
      ".vscode": { link: "editor" },
    })
    refusal((await callTool(root, "write", { path: "cfg/settings.json", content: "{}" })).envelope as never, ".claude/")
    refusal((await callTool(root, "write", { path: "vs", content: "{}" })).envelope as never, ".vscode/")
    // .vscode leads to editor/: VS Code reads it there, so editor/ is held as .vscode/ is.
    refusal((await callTool(root, "edit", { path: "editor/settings.json", old_string: "{}", new_string: "[]" })).envelope as never, ".vscode/")
    expect(readFileSync(join(root, "editor/settings.json"), "utf8")).toBe("{}\n")
  })

  test("hook managers' files where the tool is in use, git's hooks path, and sandbox.protected, which names its own next step", async () => {
    const root = project({ "lefthook.yml": "pre-commit: {}\n", "githooks/.keep": "", "Makefile": "all:\n" })
    git(root, "init", "-q")
    git(root, "config", "core.hooksPath", "githooks")
    const options = { configOverrides: { sandbox: { protected: ["Makefile"] } } }
    refusal((await callTool(root, "write", { path: "lefthook-local.yml", content: "x" }, options)).envelope as never, "lefthook-local.yml")
    refusal((await callTool(root, "write", { path: "githooks/pre-commit", content: "#!/bin/sh\n" }, options)).envelope as never, "githooks/")
    const own = (await callTool(root, "write", { path: "Makefile", content: "x" }, options)).envelope
    refusal(own as never, "Makefile")
    expect(own.error!.message).toContain("sandbox.protected")
    // No husky here: .husky/ is not in use, so it is an ordinary folder (as for a confined command).
    expect((await callTool(root, "write", { path: ".husky/notes.txt", content: "x" }, options)).envelope.status).toBe("success")
  })

  test("anvil's own writes under .anvil/ (spill files, todos) and git_add/git_commit of a protected file still work", async () => {
    const root = project({ ".vscode/settings.json": "{}\n" })
    git(root, "init", "-q")
    const todo = await callTool(root, "todowrite", { todos: [{ content: "Fix it", status: "pending", priority: "high" }] })
    expect(todo.envelope.status).toBe("success")
    // A long output is cut and saved in full under .anvil/tool-output/, which the model may read back.
    const long = await callTool(root, "bash", { command: "seq 1 3000" }, { configOverrides: { output: { max_lines: 10 } } })
    const saved = (long.envelope.data as { truncation?: { full_output_text_path?: string } }).truncation?.full_output_text_path
    expect(saved).toStartWith(".anvil/tool-output/")
    expect(readFileSync(join(root, saved!), "utf8")).toContain("\n3000")
    expect((await callTool(root, "read", { path: saved! })).envelope.status).not.toBe("error")
    expect((await callTool(root, "git_add", { paths: [".vscode/settings.json", "anvil.json"] })).envelope.status).toBe("success")
    const commit = await callTool(root, "git_commit", { message: "Add editor settings" }, { env: { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" } })
    expect(commit.envelope.status).toBe("success")
    expect(git(root, "ls-files")).toContain(".vscode/settings.json")
  })
})

describe("a plugin's files", () => {
  test("ctx.files.write holds the same line; ctx.files.read still reads a protected file", async () => {
    const root = project({ "ok.txt": "" })
    const config = tempDir("anvil-protected-plugin-")
    writeTree(join(config, "anvil", "plugins"), {
      "touch.ts": `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({ name: "touch_file", description: "Writes a file.", parameters: Schema.Struct({ path: Schema.String }), run: async ({ path }, ctx) => {
  const settings = await ctx.files.read("anvil.json")
  await ctx.files.write(path, "x")
  return "read " + settings.trim()
} })
`,
    })
    const env = { XDG_CONFIG_HOME: config, XDG_CACHE_HOME: join(config, "cache"), HOME: join(config, "home") }
    const set = await loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames() })
    const tools = toolsWithPlugins(builtinTools, set)
    const refused = (await callTool(root, "touch_file", { path: ".vscode/tasks.json" }, { tools, env })).envelope
    expect(refused.error).toMatchObject({ code: "ACCESS_DENIED", message: expect.stringContaining("is a protected path (.vscode/)") })
    expect(existsSync(join(root, ".vscode"))).toBe(false)
    const ok = (await callTool(root, "touch_file", { path: "ok.txt" }, { tools, env })).envelope
    expect(ok.text).toContain("read {}")
    expect(readFileSync(join(root, "ok.txt"), "utf8")).toBe("x")
    // A read-only file is read as well (only a change of it is refused).
    chmodSync(join(root, "anvil.json"), 0o444)
    expect((await callTool(root, "touch_file", { path: "ok.txt" }, { tools, env })).envelope.text).toContain("read {}")
  })
})

describe("through the binary", () => {
  test("anvil tool write/patch of a protected path: ACCESS_DENIED with the next step, exit 1, nothing written", async () => {
    const root = project({ "a.txt": "hello\n" })
    git(root, "init", "-q")
    const base = tempDir("anvil-protected-")
    const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache") }
    const write = await runBinary(["tool", "write", JSON.stringify({ path: ".vscode/tasks.json", content: '{"tasks": []}' })], { cwd: root, env })
    expect(write.code).toBe(1)
    const envelope = JSON.parse(write.stdout)
    refusal(envelope, ".vscode/")
    expect(envelope.error.message).toContain("edit it themselves")
    const patch = ["--- /dev/null", "+++ b/.git/hooks/pre-commit", "@@ -0,0 +1 @@", "+echo pwned"].join("\n") + "\n"
    const patched = await runBinary(["tool", "patch", JSON.stringify({ patch })], { cwd: root, env })
    expect(JSON.parse(patched.stdout).error.code).toBe("ACCESS_DENIED")
    // A scripted run without --yes: the model's write is refused as protected, not as awaiting an approval.
    writeFileSync(join(root, "turns.json"), JSON.stringify([{ tool_calls: [{ name: "write", arguments: { path: ".vscode/tasks.json", content: "{}" }, id: "w1" }] }, { text: "done" }]))
    const run = await runBinary(["run", "--model", "replay/turns.json", "--format", "stream-json", "go"], { cwd: root, env })
    expect(run.stdout).toContain('"code":"ACCESS_DENIED"')
    expect(run.stdout).not.toContain("PERMISSION_DENIED")
    expect(existsSync(join(root, ".vscode"))).toBe(false)
    expect(existsSync(join(root, ".git/hooks/pre-commit"))).toBe(false)
  })

  test("an absolute sandbox.protected entry: the refusal names the path once, plainly, however the call names it", async () => {
    const root = project({ "keep/x.txt": "x\n", "keep2/y.txt": "y\n" })
    git(root, "init", "-q")
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ sandbox: { protected: [join(root, "keep/x.txt"), `${join(root, "keep2")}/`] } }))
    const env = { HOME: tempDir("anvil-protected-home-") }
    for (const path of ["keep/x.txt", join(root, "keep/x.txt")]) {
      const r = await runBinary(["tool", "write", JSON.stringify({ path, content: "changed" })], { cwd: root, env })
      const envelope = JSON.parse(r.stdout)
      expect(envelope.error.message).toStartWith("Access denied: keep/x.txt is a protected path: it makes code run later")
      expect(envelope.error.message.split("keep/x.txt").length - 1).toBe(1)
      expect(envelope.error.message).not.toContain(root)
      expect(envelope.error.field_errors[0].message).toBe("protected path")
      refusal(envelope, "keep/x.txt")
    }
    // A folder entry is named after the path it holds: two things, each once.
    const inFolder = JSON.parse((await runBinary(["tool", "write", JSON.stringify({ path: join(root, "keep2/y.txt"), content: "z" })], { cwd: root, env })).stdout)
    expect(inFolder.error.message).toStartWith("Access denied: keep2/y.txt is a protected path (keep2/): ")
    refusal(inFolder, "keep2/")
    expect(readFileSync(join(root, "keep/x.txt"), "utf8")).toBe("x\n")
    expect(readFileSync(join(root, "keep2/y.txt"), "utf8")).toBe("y\n")
  })
})
