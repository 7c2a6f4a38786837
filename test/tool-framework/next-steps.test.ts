import { describe, expect, test } from "bun:test"
import { chmodSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { runBinary } from "../support/binary.ts"
import { tempDir } from "../support/temp-dirs.ts"

/**
 * The envelope's rules ask every error (and every partial result) for a next
 * step in its text. Errors whose tool named none get one from the framework:
 * the parameters at fault, the call without parameters the tool does not take,
 * a look at a binary file; the tools add their own where they know better.
 */

const nextSteps = (text: string): Array<string> => {
  const at = text.indexOf("Recommended next step (token-efficient):\n")
  if (at < 0) return []
  return text
    .slice(at)
    .split("\n")
    .slice(1)
    .filter((l) => l.startsWith("* "))
    .map((l) => l.slice(2))
}

const first = async (root: string, name: string, params: unknown) => {
  const e = (await callTool(root, name, params)).envelope
  return { status: e.status, code: e.error?.code, step: nextSteps(e.text)[0], steps: nextSteps(e.text), envelope: e }
}

describe("every error names a next step", () => {
  test("parameters the tool does not take: the same call without them (aliases and short values kept)", async () => {
    const root = project({ "n.txt": "1\n2\n" })
    expect(await first(root, "read", { path: "n.txt", bogus: 1 })).toMatchObject({ code: "INVALID_PARAM", step: 'Read(path="n.txt")' })
    expect(await first(root, "read", { file_path: "n.txt", offset: 1, colour: "red" })).toMatchObject({ step: 'Read(file_path="n.txt", offset=1)' })
    // A long or multi-line value is named, not repeated.
    const write = await first(root, "write", { path: "w.txt", content: "a\nb\n", mode: "0644" })
    expect(write.step).toBe('Write(path="w.txt", content="<as before>")')
  })

  test("a parameter a tool's own check refuses is asked for again", async () => {
    const root = project({ "f.txt": "a\n", "lat.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]) })
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["bash", { command: "  " }, 'Bash(command="<correct_value>")'],
      ["bash", {}, 'Bash(command="<correct_value>")'],
      ["edit", { path: "f.txt", old_string: "a", new_string: "a" }, 'Edit(new_string="<correct_value>")'],
      ["edit", { path: "lat.txt", old_string: "caf", new_string: "\u{1F600}" }, 'Edit(new_string="<correct_value>")'],
      // A list's faulty item is mended in the list as given: the other items stay (a list of one stand-in item would
      // lead the model to drop them).
      ["multiedit", { path: "f.txt", edits: [{ old_string: "a", new_string: "b" }, { old_string: "", new_string: "c" }] }, 'MultiEdit(edits=[{"old_string":"a","new_string":"b"},{"old_string":"<correct_value>","new_string":"c"}])'],
      // An unknown field inside an item is a fault of the list that holds it: the list again without that field.
      ["multiedit", { path: "f.txt", edits: [{ old_string: "a", new_string: "b", colour: 1 }] }, 'MultiEdit(edits=[{"old_string":"a","new_string":"b"}])'],
      ["list", { ignore: ["["] }, 'LS(ignore=["<correct_value>"])'],
      ["grep", { pattern: "a", include: "[" }, 'Grep(include="<correct_value>")'],
      ["todowrite", { todos: [{ content: "a", status: "in_progress" }, { content: "b", status: "in_progress" }] }, 'TodoWrite(todos=[{"content":"a","status":"in_progress"},{"content":"b","status":"pending"}])'],
      ["patch", { patch: "garbage" }, 'Patch(patch="<correct_value>")'],
    ]
    for (const [name, params, step] of cases) {
      const r = await first(root, name, params)
      expect({ name, params, code: r.code, step: r.step }).toEqual({ name, params, code: "INVALID_PARAM", step })
    }
    // Nothing was written by any of them.
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("a\n")
  })

  test("a list refused for some of its items is asked for again whole, only those items mended", async () => {
    const root = project({ "f.txt": "a\nb\nc\n" })
    const long = "x".repeat(200)
    const cases: Array<[string, Record<string, unknown>, string]> = [
      // Schema faults: a word outside the set becomes the set's first word; a wrong type the stand-in; the rest stays.
      ["todowrite", { todos: [{ id: "1", content: "Read", status: "completed" }, { content: "Fix", status: "done" }] }, 'TodoWrite(todos=[{"id":"1","content":"Read","status":"completed"},{"content":"Fix","status":"pending"}])'],
      ["git_add", { paths: ["f.txt", 3] }, 'GitAdd(paths=["f.txt","<correct_value>"])'],
      // An alias spelling of the field asked for is left out, so the item does not name it twice; long values are named.
      ["multiedit", { path: "f.txt", edits: [{ old_string: long, new_string: "A" }, { oldString: "b", newString: "b" }] }, 'MultiEdit(edits=[{"old_string":"<as before>","new_string":"A"},{"oldString":"b","new_string":"<correct_value>"}])'],
      // The tool's own checks: every task after the first in progress paused, a duplicate id and empty content asked for.
      ["todowrite", { todos: [{ content: "a", status: "in_progress" }, { id: "7", content: "b", status: "in_progress" }, { content: "c", status: "in_progress" }] }, 'TodoWrite(todos=[{"content":"a","status":"in_progress"},{"id":"7","content":"b","status":"pending"},{"content":"c","status":"pending"}])'],
      ["todowrite", { todos: [{ id: "x", content: "a", status: "pending" }, { id: "x", content: " ", status: "pending" }] }, 'TodoWrite(todos=[{"id":"x","content":"a","status":"pending"},{"id":"<correct_value>","content":"<correct_value>","status":"pending"}])'],
    ]
    for (const [name, params, step] of cases) {
      const r = await first(root, name, params)
      expect({ name, code: r.code, step: r.step }).toEqual({ name, code: "INVALID_PARAM", step })
    }
    // A list too long has no mending: the step in words.
    const many = (await callTool(root, "todowrite", { todos: Array.from({ length: 101 }, (_, i) => ({ content: `t${i}`, status: "pending" })) })).envelope
    expect(nextSteps(many.text)).toEqual([])
    expect(many.text).toEndWith("Next step: write the list again with at most 100 tasks: merge related tasks or drop finished ones.")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("a\nb\nc\n")
  })

  test("through the binary: a todo list and a multiedit refused for one item are asked for again whole", async () => {
    const root = project({ "f.txt": "a\nb\n" })
    const home = tempDir("anvil-home-")
    const call = async (name: string, params: unknown) => {
      const r = await runBinary(["tool", name, JSON.stringify(params)], { cwd: root, env: { HOME: home } })
      return { exit: r.code, step: nextSteps(JSON.parse(r.stdout).text)[0] }
    }
    expect(await call("todowrite", { todos: [{ content: "a", status: "in_progress" }, { content: "b", status: "in_progress" }] })).toEqual({
      exit: 1,
      step: 'TodoWrite(todos=[{"content":"a","status":"in_progress"},{"content":"b","status":"pending"}])',
    })
    expect(await call("multiedit", { path: "f.txt", edits: [{ old_string: "a", new_string: "A" }, { old_string: "b" }] })).toEqual({
      exit: 1,
      step: 'MultiEdit(edits=[{"old_string":"a","new_string":"A"},{"old_string":"b","new_string":"<correct_value>"}])',
    })
  }, 120_000)

  test("through the binary: a step copied whole, its stand-ins with it, is refused and nothing is written", async () => {
    const root = project({ "f.txt": "a\nb\n" })
    const home = tempDir("anvil-home-")
    const call = async (name: string, params: unknown) => JSON.parse((await runBinary(["tool", name, JSON.stringify(params)], { cwd: root, env: { HOME: home } })).stdout)
    await call("read", { path: "f.txt" })
    // The first edit's long text is shown as "<as before>" in the step for the second's missing new_string.
    const long = `A${"x".repeat(130)}`
    const refused = await call("multiedit", { path: "f.txt", edits: [{ old_string: "a", new_string: long }, { old_string: "b" }] })
    expect(nextSteps(refused.text)[0]).toBe('MultiEdit(edits=[{"old_string":"a","new_string":"<as before>"},{"old_string":"b","new_string":"<correct_value>"}])')
    const copied = await call("multiedit", { path: "f.txt", edits: [{ old_string: "a", new_string: "<as before>" }, { old_string: "b", new_string: "B" }] })
    expect(copied.error).toMatchObject({ code: "INVALID_PARAM", field_errors: [{ field: "edits.0.new_string", message: '"<as before>" is a stand-in, not a value' }] })
    expect(copied.text).toContain("Next step: call MultiEdit again with edits.0.new_string written out: the value given for it in the earlier call.")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("a\nb\n")
    const plan = await call("todowrite", { todos: [{ content: "<as before>", status: "in_progress" }] })
    expect(plan.error).toMatchObject({ code: "INVALID_PARAM", field_errors: [{ field: "todos.0.content" }] })
    const placeholder = await call("write", { path: "g.txt", content: "<correct_value>" })
    expect(placeholder.text).toContain("Next step: call Write again with content written out: the value it needs.")
  }, 120_000)

  test("a binary file is looked at; a binary patch is tried again without its binary part", async () => {
    const root = project({ "b.bin": new Uint8Array([0x78, 0x00, 0x79]) })
    for (const [name, params] of [
      ["write", { path: "b.bin", content: "q" }],
      ["grep", { pattern: "x", path: "b.bin" }],
    ] as const) {
      expect(await first(root, name, params)).toMatchObject({ code: "BINARY_FILE", step: `Bash(command="file 'b.bin'")` })
    }
    const binary = await first(root, "patch", { patch: "diff --git a/b.bin b/b.bin\nGIT binary patch\nliteral 5\nMcmZ?b\n" })
    expect(binary).toMatchObject({ code: "BINARY_FILE", step: 'Patch(patch="<the patch without its binary changes>", dry_run=true)' })
  })

  test("a file under a path whose folder is a file: the listing that shows which", async () => {
    const root = project({ "a.txt": "hi\n", "s/f": "x\n" })
    expect(await first(root, "write", { path: "a.txt/b.txt", content: "x" })).toMatchObject({ code: "NOT_FOUND", step: 'LS(path=".")' })
    expect(await first(root, "write", { path: "s/f/b.txt", content: "x" })).toMatchObject({ code: "NOT_FOUND", step: 'LS(path="s")' })
    expect(await first(root, "edit", { path: "a.txt/b.txt", old_string: "", new_string: "x" })).toMatchObject({ code: "NOT_FOUND", step: 'LS(path=".")' })
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("hi\n")
  })

  test("where no call helps, the step in words: a refusal only the user can lift, a cancelled call, anvil's own fault", async () => {
    const { Effect } = await import("effect")
    const { askTool, defectTool, hangTool } = await import("../support/fixture-tools.ts")
    const tools = [askTool, defectTool, hangTool]
    const words = (text: string) => text.match(/\nNext step: (.*)$/)?.[1]
    const declined = (await callTool(project({}), "asker", {}, { tools, onAsk: () => Effect.succeed(false) })).envelope
    expect(declined.error?.code).toBe("PERMISSION_DENIED")
    expect(words(declined.text)).toBe("do not repeat this call unchanged; go on without it, or another way. Only the user can allow it, as said above.")
    const cancelled = (await callTool(project({}), "hang", {}, { tools, cancelled: Effect.sleep("20 millis") })).envelope
    expect(words(cancelled.text)).toBe("nothing more of this call runs; wait for the user's next instruction.")
    const defect = (await callTool(project({}), "boom", {}, { tools })).envelope
    expect(defect.error?.code).toBe("INTERNAL_ERROR")
    expect(words(defect.text)).toBe("this is a fault in anvil, or in the plugin or server behind the tool, not in the call: go on another way, and tell the user.")
    // A refusal the system gave (a read-only file) keeps its own look at the file, not these words.
    const root = project({ "ro.txt": "a\n" })
    chmodSync(join(root, "ro.txt"), 0o444)
    const readOnly = await first(root, "write", { path: "ro.txt", content: "b" })
    expect(readOnly.code).toBe("PERMISSION_DENIED")
    expect(readOnly.step).toContain("chmod u+w")
    expect(words(readOnly.envelope.text)).toBeUndefined()
  })

  test("bash's run_in_background under `anvil tool`: the same command in the foreground", async () => {
    const root = project({})
    const r = await first(root, "bash", { command: "make serve", run_in_background: true })
    expect(r).toMatchObject({ code: "INVALID_PARAM", step: 'Bash(command="make serve")' })
  })
})

describe("patch: a loosely placed hunk is shown to be checked; a file named twice is one file", () => {
  test("a hunk matched only by ignoring whitespace: partial, with a Read of where it went", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`)
    lines[19] = "line 20   "
    const root = project({ "f.txt": `${lines.join("\n")}\n` })
    const r = await first(root, "patch", { patch: "--- a/f.txt\n+++ b/f.txt\n@@ -19,3 +19,3 @@\n line 19\n-line 20\n+LINE 20\n line 21\n" })
    expect(r.status).toBe("partial")
    expect((r.envelope.data.files as Array<{ fuzz?: unknown }>)[0]!.fuzz).toEqual([{ hunk: 1, line: 19, tolerance: "trailing_whitespace" }])
    expect(r.steps).toContain('Read(path="f.txt", offset=13, limit=20)')
    expect(readFileSync(join(root, "f.txt"), "utf8")).toContain("LINE 20\n")
  })

  test("two diffs of the same file (a series) are applied in turn and counted as one file", async () => {
    const root = project({ "f.txt": "a\n", "g.txt": "x\n" })
    const series = ["--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n", "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-b\n+c\n"].join("")
    const one = (await callTool(root, "patch", { patch: series })).envelope
    expect(one.status).toBe("success")
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("c\n")
    expect(one.text).toContain("Applied the patch to 1 file (+2 -2).")
    expect(one.text.split("\n")[0]).toBe("# Patch: f.txt")
    expect(one.stats.files).toBe(1)
    expect(one.data.files).toHaveLength(2)
    const two = (await callTool(root, "patch", { patch: `${series.replaceAll("-a\n+b", "-c\n+d").replaceAll("-b\n+c", "-d\n+e")}--- a/g.txt\n+++ b/g.txt\n@@ -1 +1 @@\n-x\n+y\n` })).envelope
    expect(two.text).toContain("Applied the patch to 2 files (+3 -3).")
    expect(two.stats.files).toBe(2)
  })
})

describe("fetch: an HTTP error or a broken redirect chain names what to try next", () => {
  test("404: the site's front page; 403: the call with credentials; 500: the raw answer; a redirect loop or a refused connection: curl's view", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const path = new URL(req.url).pathname
        if (path === "/gone") return new Response("no such page", { status: 404 })
        if (path === "/private") return new Response("forbidden", { status: 403 })
        if (path === "/broken") return new Response("oops", { status: 500 })
        return new Response(null, { status: 302, headers: { Location: "/loop" } })
      },
    })
    try {
      const root = project({})
      const base = `http://127.0.0.1:${server.port}`
      const step = async (path: string) => first(root, "fetch", { url: `${base}${path}` })
      expect(await step("/gone")).toMatchObject({ code: "NOT_FOUND", step: `WebFetch(url="${base}/")` })
      expect(await step("/private")).toMatchObject({ code: "PERMISSION_DENIED", step: `WebFetch(url="${base}/private", auth={"type":"bearer","token":"<token>"})` })
      expect(await step("/broken")).toMatchObject({ code: "EXECUTION_ERROR", step: `Bash(command="curl -sS -i '${base}/broken'")` })
      expect(await step("/loop")).toMatchObject({ code: "EXECUTION_ERROR", step: `Bash(command="curl -sS -I '${base}/loop'")` })
    } finally {
      await server.stop(true)
    }
    // Nothing listens there any more: refused, and curl says how.
    const refused = await first(project({}), "fetch", { url: `http://127.0.0.1:${server.port}/gone` })
    expect(refused).toMatchObject({ code: "NETWORK_ERROR", step: `Bash(command="curl -sS -I 'http://127.0.0.1:${server.port}/gone'")` })
  })
})
