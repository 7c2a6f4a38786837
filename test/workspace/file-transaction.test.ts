import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { commitChanges, realOps, type CommitOps, type FileChange } from "../../src/workspace/file-transaction.ts"
import { workspaceToolError } from "../../src/tools/workspace-errors.ts"
import { tempDir } from "../support/harness.ts"

const enc = (s: string) => new TextEncoder().encode(s)

/** The real system calls, except that `method` fails for paths (or, for chmod, any call) matching `failOn`. */
const faulty = (method: keyof CommitOps, matches: (path: string) => boolean): CommitOps => {
  const failOn = (path: string | Buffer) => matches(String(path))
  const fail = (path: string | Buffer) => {
    throw Object.assign(new Error(`EACCES: injected failure, ${method} '${path}'`), { code: "EACCES", path })
  }
  return {
    ...realOps,
    writeNew: (path, bytes, mode) => (method === "writeNew" && failOn(path) ? fail(path) : realOps.writeNew(path, bytes, mode)),
    rename: (from, to) => (method === "rename" && failOn(to) ? fail(to) : realOps.rename(from, to)),
    link: (from, to) => (method === "link" && failOn(to) ? fail(to) : realOps.link(from, to)),
    unlink: (path) => (method === "unlink" && failOn(path) ? fail(path) : realOps.unlink(path)),
    chmod: (fd, mode) => (method === "chmod" && failOn(String(fd)) ? fail("mode.sh") : realOps.chmod(fd, mode)),
  }
}

const runCommit = (changes: ReadonlyArray<FileChange>, root: string, ops: CommitOps = realOps) =>
  Effect.runPromise(
    commitChanges(changes, { root }, ops).pipe(
      Effect.flip,
      Effect.map((e) => ({ ok: false as const, code: workspaceToolError(e).code, message: e.message })),
      Effect.orElseSucceed(() => ({ ok: true as const, code: undefined, message: "" })),
    ),
  )

/** A tree with three files and the changes that edit one, delete one, create one (in a new folder) and chmod one. */
const fixture = () => {
  const root = tempDir()
  writeFileSync(join(root, "edit.txt"), "old edit\n")
  writeFileSync(join(root, "gone.txt"), "old gone\n")
  writeFileSync(join(root, "mode.sh"), "echo\n")
  chmodSync(join(root, "mode.sh"), 0o644)
  const before = (name: string) => {
    const bytes = readFileSync(join(root, name))
    const st = statSync(join(root, name))
    return { bytes: new Uint8Array(bytes), mode: st.mode & 0o7777, size: bytes.length, mtimeMs: st.mtimeMs }
  }
  const changes: Array<FileChange> = [
    { path: join(root, "edit.txt"), display: "edit.txt", before: before("edit.txt"), after: { bytes: enc("new edit\n"), mode: 0o644 } },
    { path: join(root, "gone.txt"), display: "gone.txt", before: before("gone.txt") },
    { path: join(root, "new/dir/made.txt"), display: "new/dir/made.txt", after: { bytes: enc("made\n"), mode: 0o755 } },
    { path: join(root, "mode.sh"), display: "mode.sh", before: before("mode.sh"), after: { bytes: enc("echo\n"), mode: 0o755 } },
  ]
  const state = () => ({
    edit: readFileSync(join(root, "edit.txt"), "utf8"),
    gone: existsSync(join(root, "gone.txt")) ? readFileSync(join(root, "gone.txt"), "utf8") : null,
    made: existsSync(join(root, "new")),
    mode: statSync(join(root, "mode.sh")).mode & 0o777,
    entries: readdirSync(root).sort(),
  })
  return { root, changes, state }
}

describe("commitChanges", () => {
  test("applies edits, removals, creations (with folders and mode) and mode changes", async () => {
    const { root, changes } = fixture()
    const r = await runCommit(changes, root)
    expect(r.ok).toBe(true)
    expect(readFileSync(join(root, "edit.txt"), "utf8")).toBe("new edit\n")
    expect(existsSync(join(root, "gone.txt"))).toBe(false)
    expect(readFileSync(join(root, "new/dir/made.txt"), "utf8")).toBe("made\n")
    expect(statSync(join(root, "new/dir/made.txt")).mode & 0o777).toBe(0o755)
    expect(statSync(join(root, "mode.sh")).mode & 0o777).toBe(0o755)
    expect(readdirSync(root).filter((n) => n.includes(".anvil-"))).toEqual([])
  })

  const untouched = { edit: "old edit\n", gone: "old gone\n", made: false, mode: 0o644, entries: ["edit.txt", "gone.txt", "mode.sh"] }

  test("a failing rename in the middle of the commit rolls every step back", async () => {
    const { root, changes, state } = fixture()
    // The rename onto edit.txt succeeds first; linking the new file in place fails.
    const r = await runCommit(changes, root, faulty("link", (p) => p.endsWith("made.txt")))
    expect(r).toMatchObject({ ok: false, code: "PERMISSION_DENIED" })
    expect(r.message).toContain("new/dir/made.txt")
    expect(r.message).toContain("rolled back")
    expect(state()).toEqual(untouched)
  })

  test("a failing chmod (the last step) rolls the writes and removals back", async () => {
    const { root, changes, state } = fixture()
    const r = await runCommit(changes, root, faulty("chmod", () => true))
    expect(r.ok).toBe(false)
    expect(state()).toEqual(untouched)
  })

  test("without hard links (EPERM) the backups are copies: a late failure still rolls back, a clean run applies", async () => {
    const noLinks: CommitOps = {
      ...realOps,
      link: (from, to) => {
        if (to.includes(".anvil-tmp-")) throw Object.assign(new Error("EPERM: no hard links here"), { code: "EPERM" })
        realOps.link(from, to)
      },
    }
    const a = fixture()
    const chmodFails: CommitOps = {
      ...noLinks,
      chmod: () => {
        throw Object.assign(new Error("EACCES: injected"), { code: "EACCES" })
      },
    }
    expect((await runCommit(a.changes, a.root, chmodFails)).ok).toBe(false)
    expect(a.state()).toEqual(untouched)
    const b = fixture()
    expect((await runCommit(b.changes, b.root, noLinks)).ok).toBe(true)
    expect(readFileSync(join(b.root, "edit.txt"), "utf8")).toBe("new edit\n")
    expect(readdirSync(b.root).filter((n) => n.includes(".anvil-"))).toEqual([])
  })

  test("a failure while staging (disk full, say) leaves no temp files and no new folders", async () => {
    const { root, changes, state } = fixture()
    const r = await runCommit(changes, root, faulty("writeNew", (p) => p.includes("made.txt")))
    expect(r.ok).toBe(false)
    expect(r.message).toContain("Nothing was changed")
    expect(state()).toEqual(untouched)
  })

  test("a file changed on disk since it was read is a CONFLICT and nothing is touched", async () => {
    const { root, changes, state } = fixture()
    writeFileSync(join(root, "gone.txt"), "someone else wrote this\n")
    const r = await runCommit(changes, root)
    expect(r).toMatchObject({ ok: false, code: "CONFLICT" })
    expect(r.message).toContain("gone.txt changed on disk")
    expect(state()).toEqual({ ...untouched, gone: "someone else wrote this\n" })
  })

  test("a file that appeared where a new one is created is a CONFLICT", async () => {
    const { root, changes } = fixture()
    mkdirSync(join(root, "new/dir"), { recursive: true })
    writeFileSync(join(root, "new/dir/made.txt"), "race\n")
    const r = await runCommit(changes, root)
    expect(r).toMatchObject({ ok: false, code: "CONFLICT" })
    expect(readFileSync(join(root, "new/dir/made.txt"), "utf8")).toBe("race\n")
    expect(readFileSync(join(root, "edit.txt"), "utf8")).toBe("old edit\n")
  })

  test("folders emptied by removals are pruned, the root never", async () => {
    const root = tempDir()
    mkdirSync(join(root, "a/b"), { recursive: true })
    writeFileSync(join(root, "a/b/only.txt"), "x\n")
    writeFileSync(join(root, "top.txt"), "t\n")
    const st = (n: string) => ({ bytes: new Uint8Array(readFileSync(join(root, n))), mode: 0o644, size: readFileSync(join(root, n)).length, mtimeMs: statSync(join(root, n)).mtimeMs })
    const r = await runCommit(
      [
        { path: join(root, "a/b/only.txt"), display: "a/b/only.txt", before: st("a/b/only.txt") },
        { path: join(root, "top.txt"), display: "top.txt", before: st("top.txt") },
      ],
      root,
    )
    expect(r.ok).toBe(true)
    expect(readdirSync(root)).toEqual([])
    expect(existsSync(root)).toBe(true)
  })
})
