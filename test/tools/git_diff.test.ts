import { describe, expect, test, setDefaultTimeout, beforeAll } from "bun:test"
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { busyRepo, git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()
let env: Record<string, string> = { HOME: home }
const diff = (root: string, params: Record<string, unknown> = {}) => callTool(root, "git_diff", params, { env })
const content = (o: Awaited<ReturnType<typeof diff>>) => String((o.envelope.data as { content: string }).content)
const gitDiff = (root: string, args: ReadonlyArray<string> = []) => git(root, home, ["diff", ...args]).replace(/\n$/, "")

// Both backends answer every case: the git command line, and isomorphic-git (used when no git is installed).
for (const backend of ["cli", "isomorphic"] as const) {
describe(`git_diff (${backend})`, () => {
  beforeAll(() => {
    env = { HOME: home, ANVIL_GIT_BACKEND: backend }
  })
  test("unstaged diff is `git diff`: edits, deletion, mode change, typechange, quoted names, no untracked files", async () => {
    const root = busyRepo(home)
    const out = await diff(root)
    const expected = gitDiff(root)
    for (const piece of ["diff --git a/c.txt b/c.txt\ndeleted file mode 100644", "old mode 100644\nnew mode 100755", "deleted file mode 120000", "+++ b/sp ace.txt\t", "@@ -7,7 +7,7 @@ mod 6"]) {
      expect(expected).toContain(piece)
    }
    expect(content(out)).toBe(expected)
    expect(content(out)).not.toContain("u.txt")
    const files = (out.envelope.data as { files: Array<{ path: string; status: string }> }).files
    expect(files.map((f) => f.path)).toEqual(["a.txt", "c.txt", "e.txt", "link", "link", "new.txt", "sp ace.txt", "sub/mod.txt"])
    expect(out.envelope.text).toMatch(/^# GitDiff\n\n8 files with unstaged changes: \+\d+ -\d+\./)
  })

  test("staged diff is `git diff --staged`, with exact and inexact renames (similarity index)", async () => {
    const root = busyRepo(home)
    const out = await diff(root, { staged: true })
    const expected = gitDiff(root, ["--staged"])
    expect(expected).toContain("similarity index 100%\nrename from d.txt\nrename to d-renamed.txt")
    expect(expected).toMatch(/similarity index 8\d%\nrename from r.txt\nrename to moved\/r2.txt/)
    expect(content(out)).toBe(expected)
    expect(out.envelope.text.startsWith("# GitDiff (staged)")).toBe(true)
    const files = (out.envelope.data as { files: Array<{ path: string; old_path?: string; status: string }> }).files
    expect(files).toContainEqual(expect.objectContaining({ path: "moved/r2.txt", old_path: "r.txt", status: "renamed", additions: 2, deletions: 2 }))
  })

  test("`path` limits the diff to a file or a folder, like `git diff -- <path>`", async () => {
    const root = busyRepo(home)
    expect(content(await diff(root, { path: "sub" }))).toBe(gitDiff(root, ["--", "sub"]))
    expect(content(await diff(root, { path: "a.txt" }))).toBe(gitDiff(root, ["--", "a.txt"]))
    const out = await diff(root, { path: "a.txt", staged: true })
    expect(content(out)).toBe(gitDiff(root, ["--staged", "--", "a.txt"]))
    expect(out.envelope.context.path_resolved).toBe("a.txt")
  })

  test("function context after @@, several hunks, missing final newline and binary files match git", async () => {
    const source = ["function alpha() {", ...Array.from({ length: 12 }, (_, i) => `  const a${i} = ${i}`), "}", "", "class Beta {", ...Array.from({ length: 12 }, (_, i) => `  b${i} = ${i}`), "}"].join("\n")
    const root = gitRepo(home, { "code.ts": `${source}\n`, "tail.txt": "one\ntwo\n", "blob.bin": new Uint8Array([0, 1, 2, 3]) }, { commit: "one" })
    writeFileSync(join(root, "code.ts"), `${source.replace("const a8 = 8", "const a8 = 80").replace("b9 = 9", "b9 = 90")}\n`)
    writeFileSync(join(root, "tail.txt"), "one\ntwo")
    writeFileSync(join(root, "blob.bin"), new Uint8Array([0, 9, 9, 9]))
    const expected = gitDiff(root)
    expect(expected).toContain("@@ -7,7 +7,7 @@ function alpha() {")
    expect(expected).toContain("@@ -23,7 +23,7 @@ class Beta {")
    expect(expected).toContain("\\ No newline at end of file")
    expect(expected).toContain("Binary files a/blob.bin and b/blob.bin differ")
    expect(content(await diff(root))).toBe(expected)
  })

  test("new and deleted files in the staged diff match git (including the first commit's diff)", async () => {
    const root = gitRepo(home)
    writeFileSync(join(root, "first.txt"), lines("f", 3))
    git(root, home, ["add", "first.txt"])
    expect(content(await diff(root, { staged: true }))).toBe(gitDiff(root, ["--staged"]))
    git(root, home, ["commit", "-q", "-m", "one"])
    git(root, home, ["rm", "-q", "first.txt"])
    writeFileSync(join(root, "second.txt"), "completely different\n")
    git(root, home, ["add", "second.txt"])
    expect(content(await diff(root, { staged: true }))).toBe(gitDiff(root, ["--staged"]))
  })

  test("a conflicted file is named, not diffed (git would print a combined diff)", async () => {
    const root = gitRepo(home, { "f.txt": "base\n", "g.txt": lines("g") }, { commit: "base" })
    git(root, home, ["checkout", "-q", "-b", "side"])
    writeFileSync(join(root, "f.txt"), "side\n")
    git(root, home, ["commit", "-q", "-am", "side"])
    git(root, home, ["checkout", "-q", "main"])
    writeFileSync(join(root, "f.txt"), "main\n")
    git(root, home, ["commit", "-q", "-am", "main"])
    expect(() => git(root, home, ["merge", "side"])).toThrow()
    appendFileSync(join(root, "g.txt"), "more\n")
    const out = await diff(root)
    expect((out.envelope.data as { unmerged: Array<string> }).unmerged).toEqual(["f.txt"])
    expect(out.envelope.text).toContain("Merge conflicts in f.txt: not diffed here")
    expect(content(out)).toBe(gitDiff(root, ["--", "g.txt"]))
  })

  test("no changes: an empty diff that says so", async () => {
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
    writeFileSync(join(root, "untracked.txt"), "u\n")
    const out = await diff(root)
    expect(out.envelope.status).toBe("success")
    expect(content(out)).toBe("")
    expect(out.envelope.text).toContain("No unstaged changes. (Untracked files are not shown; see git_status.)")
  })

  test("a path that names nothing says so (a wildcard is taken literally), instead of 'no changes'", async () => {
    const root = gitRepo(home, { "a.txt": "a\n", "d/b.txt": "b\n" }, { commit: "one" })
    writeFileSync(join(root, "a.txt"), "changed\n")
    const glob = await diff(root, { path: "*.txt" })
    expect(glob.envelope.status).toBe("success")
    expect(glob.envelope.text).toContain("no file or folder '*.txt' exists in the work tree (the path is taken literally, not as a wildcard pattern)")
    expect((await diff(root, { path: "nope.txt", staged: true })).envelope.text).toContain("No staged changes in nope.txt: no file or folder 'nope.txt' exists in the work tree. Name one file or folder, or leave path out for every change.")
    // A file removed with git rm: its change is staged, and the unstaged answer says where to look.
    git(root, home, ["rm", "-q", "d/b.txt"])
    expect((await diff(root, { path: "d/b.txt" })).envelope.text).toContain("(a file removed with git rm shows with staged: true).")
    expect(content(await diff(root, { path: "d/b.txt", staged: true }))).toContain("-b")
    mkdirSync(join(root, "d"), { recursive: true })
    writeFileSync(join(root, "d", "c.txt"), "c\n")
    // A file that exists with no changes is just that.
    expect((await diff(root, { path: "d" })).envelope.text).toContain("No unstaged changes in d. (Untracked")
  })

  test("thousands of files: the same diff as git", async () => {
    const tree: Record<string, string> = {}
    for (let i = 0; i < 3000; i++) tree[`d${i % 20}/f${i}.txt`] = lines(`file ${i}`, 5)
    const root = gitRepo(home, tree, { commit: "many" })
    for (let i = 0; i < 3000; i += 250) appendFileSync(join(root, `d${i % 20}/f${i}.txt`), "appended\n")
    const out = await diff(root)
    expect(content(out)).toBe(gitDiff(root))
    expect(out.envelope.stats.files).toBe(12)
    rmSync(root, { recursive: true, force: true })
  })

  test("a path outside the project is ACCESS_DENIED; outside a repository is NOT_FOUND", async () => {
    const root = busyRepo(home)
    const out = await diff(root, { path: "../elsewhere" })
    expect(out.envelope.error?.code).toBe("ACCESS_DENIED")
    const plain = project({ "a.txt": "a" })
    expect((await diff(plain)).envelope.error?.code).toBe("NOT_FOUND")
  })
})
}
