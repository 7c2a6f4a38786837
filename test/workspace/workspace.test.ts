import { describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import { mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { PlatformLive } from "../../src/runtime.ts"
import { workspaceToolError } from "../../src/tools/workspace-errors.ts"
import { findProjectRoot } from "../../src/workspace/project-root.ts"
import { Workspace } from "../../src/workspace/workspace.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

const resolveIn = (root: string, input: string, options: { cwd?: string; extra?: Array<string> } = {}) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const ws = yield* Workspace
      return yield* ws.resolve(input).pipe(Effect.result)
    }).pipe(
      Effect.provide(
        Workspace.layer({ root, cwd: options.cwd ?? root, extraAllowed: options.extra ?? [] }).pipe(Layer.provide(PlatformLive)),
      ),
    ),
  )

const ok = async (root: string, input: string, options?: { cwd?: string; extra?: Array<string> }) => {
  const r = await resolveIn(root, input, options)
  if (r._tag !== "Success") throw new Error(`expected success, got ${workspaceToolError(r.failure).code}: ${r.failure.message}`)
  return r.success
}
const code = async (root: string, input: string) => {
  const r = await resolveIn(root, input)
  return r._tag === "Failure" ? workspaceToolError(r.failure).code : "OK"
}

describe("Workspace.resolve (sandbox)", () => {
  test("relative paths resolve against the working directory and display root-relative", async () => {
    const root = project({ "src/a.ts": "x" })
    const r = await ok(root, "a.ts", { cwd: join(root, "src") })
    expect(r.display).toBe("src/a.ts")
    expect(r.exists).toBe(true)
    expect((await ok(root, ".")).display).toBe(".")
    expect((await ok(root, join(root, "src/a.ts"))).display).toBe("src/a.ts")
  })

  test("a path that does not exist yet is accepted inside the root", async () => {
    const root = project()
    const r = await ok(root, "new/dir/file.txt")
    expect(r.exists).toBe(false)
    expect(r.display).toBe("new/dir/file.txt")
  })

  test("`..` and absolute paths leading outside are ACCESS_DENIED", async () => {
    const root = project()
    expect(await code(root, "../x")).toBe("ACCESS_DENIED")
    expect(await code(root, "a/../../x")).toBe("ACCESS_DENIED")
    expect(await code(root, "/etc/passwd")).toBe("ACCESS_DENIED")
    expect(await code(root, `${root}-sibling/x`)).toBe("ACCESS_DENIED")
  })

  test("symlinks whose target leaves the root are ACCESS_DENIED, also for new files beneath them", async () => {
    const outside = tempDir()
    const root = project({ "in.txt": "x" })
    writeTree(outside, { "secret.txt": "s" })
    symlinkSync(join(outside, "secret.txt"), join(root, "leak.txt"))
    symlinkSync(outside, join(root, "outdir"))
    symlinkSync(join(root, "in.txt"), join(root, "inside-link.txt"))
    expect(await code(root, "leak.txt")).toBe("ACCESS_DENIED")
    expect(await code(root, "outdir/secret.txt")).toBe("ACCESS_DENIED")
    expect(await code(root, "outdir/new-file.txt")).toBe("ACCESS_DENIED")
    expect((await ok(root, "inside-link.txt")).real).toBe(join(root, "in.txt"))
  })

  test("a path through a link to the project (the shell's $PWD in a linked folder) names the project's files", async () => {
    const root = project({ "src/a.ts": "x" })
    symlinkSync("a.ts", join(root, "src/alias.ts"))
    const outside = tempDir()
    symlinkSync(root, join(outside, "linked"))
    symlinkSync(join(root, "src/a.ts"), join(outside, "to-a.ts"))
    const viaLink = await ok(root, join(outside, "linked/src/a.ts"))
    expect([viaLink.display, viaLink.absolute, viaLink.exists]).toEqual(["src/a.ts", join(root, "src/a.ts"), true])
    // Links below the project's own folder keep their names; a new file is placed inside; the root itself resolves.
    expect((await ok(root, join(outside, "linked/src/alias.ts"))).display).toBe("src/alias.ts")
    expect((await ok(root, join(outside, "linked/new/b.ts"))).display).toBe("new/b.ts")
    expect((await ok(root, join(outside, "linked"))).display).toBe(".")
    expect((await ok(root, join(outside, "to-a.ts"))).display).toBe("src/a.ts")
    // What does not really lead inside stays outside.
    expect(await code(root, join(outside, "linked/../x"))).toBe("ACCESS_DENIED")
    expect(await code(root, join(outside, "missing/x"))).toBe("ACCESS_DENIED")
  })

  test("a dangling link is judged by its target", async () => {
    const root = project()
    symlinkSync("/nonexistent-anvil-target", join(root, "dangling-out"))
    symlinkSync("missing-inside", join(root, "dangling-in"))
    expect(await code(root, "dangling-out")).toBe("ACCESS_DENIED")
    expect((await ok(root, "dangling-in")).exists).toBe(true)
  })

  test("symlink loops, NUL bytes and over-long paths are clean INVALID_PARAM errors", async () => {
    const root = project()
    symlinkSync("loop-b", join(root, "loop-a"))
    symlinkSync("loop-a", join(root, "loop-b"))
    expect(await code(root, "loop-a")).toBe("INVALID_PARAM")
    expect(await code(root, "a\0b")).toBe("INVALID_PARAM")
    expect(await code(root, "x".repeat(300))).toBe("INVALID_PARAM")
    expect(await code(root, "a/".repeat(2100))).toBe("INVALID_PARAM")
  })

  test("an allowed extra folder outside the root is reachable and shown absolute", async () => {
    const root = project()
    const extra = tempDir()
    writeTree(extra, { "f.json": "{}" })
    const r = await ok(root, join(extra, "f.json"), { extra: [extra] })
    expect(r.display).toBe(join(extra, "f.json"))
  })
})

describe("project root", () => {
  const find = (cwd: string) => Effect.runPromise(findProjectRoot(cwd).pipe(Effect.provide(PlatformLive)))

  test("the nearest ancestor with .git or anvil.json, else the working directory", async () => {
    const root = project({ "a/b/c/f.txt": "x" })
    expect(await find(join(root, "a/b/c"))).toBe(root)
    const repo = tempDir()
    mkdirSync(join(repo, ".git"))
    mkdirSync(join(repo, "pkg/deep"), { recursive: true })
    expect(await find(join(repo, "pkg/deep"))).toBe(repo)
    const bare = tempDir()
    mkdirSync(join(bare, "x"))
    // No marker anywhere up to / (tmp has none): the working directory itself.
    const found = await find(join(bare, "x"))
    expect([join(bare, "x")]).toContain(found)
  })
})
