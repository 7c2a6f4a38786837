import { describe, expect, test, setDefaultTimeout, beforeAll } from "bun:test"
import { Effect } from "effect"
import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()
let env: Record<string, string> = { HOME: home }
const add = (root: string, params: unknown, options: Parameters<typeof callTool>[3] = {}) => callTool(root, "git_add", params, { env, ...options })
const porcelain = (root: string) => git(root, home, ["status", "--porcelain"]).replace(/\n$/, "")

const repo = () => {
  const root = gitRepo(home, { "src/a.txt": lines("a"), "src/b.txt": lines("b"), "top.txt": "top\n", ".gitignore": "*.log\n" }, { commit: "one" })
  writeFileSync(join(root, "src", "a.txt"), `${lines("a")}more\n`)
  unlinkSync(join(root, "src", "b.txt"))
  mkdirSync(join(root, "src", "new"), { recursive: true })
  writeFileSync(join(root, "src", "new", "c.txt"), "c\n")
  writeFileSync(join(root, "top.txt"), "changed\n")
  writeFileSync(join(root, "src", "debug.log"), "ignored\n")
  return root
}

// Both backends answer every case: the git command line, and isomorphic-git (used when no git is installed).
for (const backend of ["cli", "isomorphic"] as const) {
describe(`git_add (${backend})`, () => {
  beforeAll(() => {
    env = { HOME: home, ANVIL_GIT_BACKEND: backend }
  })
  test("stages new, modified and deleted files under a folder, as `git add <dir>` does; the index is git-readable", async () => {
    const root = repo()
    const out = await add(root, { paths: ["src"] })
    expect(out.envelope.status).toBe("success")
    expect(porcelain(root)).toBe("M  src/a.txt\nD  src/b.txt\nA  src/new/c.txt\n M top.txt")
    const data = out.envelope.data as { ok: boolean; files: Array<string> }
    expect(data.ok).toBe(true)
    expect(data.files).toEqual(["src/a.txt", "src/b.txt", "src/new/c.txt"])
    expect(out.envelope.text).toContain("Staged 3 files:\nM  src/a.txt\nD  src/b.txt\nA  src/new/c.txt")
    // git agrees with what was staged, blob for blob.
    expect(git(root, home, ["diff", "--cached", "--stat"])).toContain("3 files changed")
    git(root, home, ["fsck", "--no-progress"])
  })

  test("before the first commit, and a file added then changed again: each named as git's index now has it", async () => {
    const root = gitRepo(home, { "a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n" })
    git(root, home, ["add", "a.txt", "gone.txt"])
    writeFileSync(join(root, "a.txt"), "a, changed\n")
    unlinkSync(join(root, "gone.txt"))
    const out = await add(root, { paths: "." })
    expect(porcelain(root)).toBe("A  a.txt\nA  b.txt")
    expect(out.envelope.text).toContain("Staged 3 files:\nA  a.txt\nA  b.txt\nD  gone.txt")
  })

  test("a single path (the `path` name) and '.' for everything", async () => {
    const root = repo()
    await add(root, { path: "top.txt" })
    expect(porcelain(root)).toContain("M  top.txt")
    expect(porcelain(root)).toContain(" M src/a.txt")
    await add(root, { paths: "." })
    expect(porcelain(root)).toBe("M  src/a.txt\nD  src/b.txt\nA  src/new/c.txt\nM  top.txt")
  })

  test("an ignored file named explicitly is skipped and reported (partial); the others are staged", async () => {
    const root = repo()
    const out = await add(root, { paths: ["src/debug.log", "top.txt"] })
    expect(out.envelope.status).toBe("partial")
    expect((out.envelope.data as { ignored: Array<string> }).ignored).toEqual(["src/debug.log"])
    expect(out.envelope.text).toContain("Skipped (ignored by .gitignore, not staged): src/debug.log")
    expect(porcelain(root)).toContain("M  top.txt")
    expect(porcelain(root)).not.toContain("debug.log")
  })

  test("a path that matches nothing is NOT_FOUND and stages nothing; outside the project is ACCESS_DENIED", async () => {
    const root = repo()
    const out = await add(root, { paths: ["top.txt", "nope.txt"] })
    expect(out.envelope.error?.code).toBe("NOT_FOUND")
    expect(out.envelope.error?.message).toContain("pathspec 'nope.txt' did not match any files")
    expect(porcelain(root)).toContain(" M top.txt")
    expect((await add(root, { paths: ["../outside.txt"] })).envelope.error?.code).toBe("ACCESS_DENIED")
    expect((await add(root, { paths: [".git/config"] })).envelope.error?.code).toBe("INVALID_PARAM")
  })

  test("a symbolic link out of the project is refused when named (the path safety contract), and staged as a link by '.', as git stages it", async () => {
    const outside = project({ "secret.txt": "never read\n", "dir/x.txt": "x\n" }, { marker: false })
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
    symlinkSync(join(outside, "secret.txt"), join(root, "out"))
    symlinkSync(join(outside, "dir"), join(root, "outdir"))
    for (const paths of [["out"], ["outdir"], ["outdir/x.txt"]]) {
      expect((await add(root, { paths })).envelope.error?.code).toBe("ACCESS_DENIED")
    }
    expect(porcelain(root)).not.toMatch(/^[MAD] /m)
    const all = await add(root, { paths: "." })
    expect(all.envelope.status).toBe("success")
    expect((all.envelope.data as { files: Array<string> }).files).toEqual(["out", "outdir"])
    // Links (mode 120000) holding the target's name, never its content.
    expect(git(root, home, ["ls-files", "-s", "out", "outdir"])).toMatch(/^120000 [0-9a-f]{40} 0\tout\n120000 [0-9a-f]{40} 0\toutdir\n$/)
    expect(git(root, home, ["cat-file", "-p", ":out"])).toBe(join(outside, "secret.txt"))
  })

  test("an empty path is INVALID_PARAM (it staged everything, as '.'); a wildcard is NOT_FOUND that says paths are literal and hints Glob", async () => {
    const root = repo()
    for (const paths of [[""], ["  "], ["top.txt", ""]]) {
      const out = await add(root, { paths })
      expect(out.envelope.error?.code).toBe("INVALID_PARAM")
      expect(out.envelope.error?.message).toContain("empty path")
      expect(porcelain(root)).not.toMatch(/^[MAD] /m)
    }
    const glob = await add(root, { paths: ["src/*.txt"] })
    expect(glob.envelope.error?.code).toBe("NOT_FOUND")
    expect(glob.envelope.error?.message).toContain("not wildcard patterns")
    expect(glob.envelope.text).toContain('Glob(pattern="src/*.txt")')
    expect(porcelain(root)).not.toMatch(/^[MAD] /m)
  })

  test("asks for permission by default; a refusal stages nothing", async () => {
    const root = repo()
    const asked: Array<string> = []
    const out = await add(root, { paths: "." }, { onAsk: (r) => Effect.sync(() => void asked.push(r.tool.name)).pipe(Effect.as(false)) })
    expect(asked).toEqual(["git_add"])
    expect(out.envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(porcelain(root)).not.toMatch(/^[MAD] /m)
  })
})
}
