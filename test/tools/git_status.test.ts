import { describe, expect, test, setDefaultTimeout, beforeAll } from "bun:test"
import { Effect } from "effect"
import { appendFileSync, chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { busyRepo, git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()
let env: Record<string, string> = { HOME: home }
const status = async (root: string, params: Record<string, unknown> = {}) => callTool(root, "git_status", params, { env })
const porcelain = (root: string) => git(root, home, ["status", "--porcelain"]).replace(/\n$/, "")
const longStatus = (root: string) => git(root, home, ["status"]).replace(/\n+$/, "")
const content = (o: Awaited<ReturnType<typeof status>>) => String((o.envelope.data as { content: string }).content).replace(/\n+$/, "")

// Both backends answer every case: the git command line, and isomorphic-git (used when no git is installed).
for (const backend of ["cli", "isomorphic"] as const) {
describe(`git_status (${backend})`, () => {
  beforeAll(() => {
    env = { HOME: home, ANVIL_GIT_BACKEND: backend }
  })
  test("short format is `git status --porcelain` on every kind of change (renames, deletions, untracked, ignored, quoting)", async () => {
    const root = busyRepo(home)
    const out = await status(root, { short: true })
    expect(out.envelope.status).toBe("success")
    const expected = porcelain(root)
    // The fixture really has each kind of line.
    for (const line of ["MM a.txt", "D  b.txt", " D c.txt", "R  d.txt -> d-renamed.txt", "R  r.txt -> moved/r2.txt", "AM new.txt", " M e.txt", " T link", "?? newdir/", "?? sub/untracked-dir/", '?? "\\303\\261ew file.txt"', ' M "sp ace.txt"']) {
      expect(expected.split("\n")).toContain(line)
    }
    expect(expected).not.toContain("debug.log")
    expect(expected).not.toContain("build")
    expect(content(out)).toBe(expected)
    const data = out.envelope.data as { entries: Array<{ path: string; index: string; worktree: string; orig_path?: string }>; branch: string }
    expect(data.branch).toBe("main")
    expect(data.entries).toContainEqual({ path: "moved/r2.txt", index: "R", worktree: " ", orig_path: "r.txt" })
    expect(out.envelope.text).toContain("On branch main: 5 staged, 7 unstaged, 4 untracked.")
  })

  test("long format is `git status` (sections, labels, advice lines)", async () => {
    const root = busyRepo(home)
    const out = await status(root)
    expect(content(out)).toBe(longStatus(root))
    expect(out.envelope.text).toContain("Changes not staged for commit:")
  })

  test("long format matches git on a clean tree, before the first commit, with only untracked files, and with only unstaged changes", async () => {
    const clean = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
    expect(content(await status(clean))).toBe(longStatus(clean))
    expect((await status(clean, { short: true })).envelope.text).toContain("nothing to commit, working tree clean")
    const unborn = gitRepo(home)
    expect(content(await status(unborn))).toBe(longStatus(unborn))
    writeFileSync(join(unborn, "x.txt"), "x\n")
    expect(content(await status(unborn))).toBe(longStatus(unborn))
    git(unborn, home, ["add", "x.txt"])
    expect(content(await status(unborn))).toBe(longStatus(unborn))
    appendFileSync(join(clean, "a.txt"), "more\n")
    expect(content(await status(clean))).toBe(longStatus(clean))
  })

  test("reports the upstream: up to date, ahead, behind, diverged — as git does", async () => {
    const origin = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
    const clone = project({}, { marker: false })
    git(clone, home, ["clone", "-q", origin, "."])
    expect(content(await status(clone))).toBe(longStatus(clone))
    expect(content(await status(clone))).toContain("up to date with 'origin/main'")
    writeFileSync(join(clone, "b.txt"), "b\n")
    git(clone, home, ["add", "b.txt"])
    git(clone, home, ["commit", "-q", "-m", "local"], { GIT_COMMITTER_DATE: "2030-01-01T00:00:00Z" })
    expect(content(await status(clone))).toBe(longStatus(clone))
    expect(content(await status(clone))).toContain("ahead of 'origin/main' by 1 commit")
    writeFileSync(join(origin, "c.txt"), "c\n")
    git(origin, home, ["add", "c.txt"])
    git(origin, home, ["commit", "-q", "-m", "remote"], { GIT_COMMITTER_DATE: "2030-01-02T00:00:00Z" })
    git(clone, home, ["fetch", "-q"])
    expect(content(await status(clone))).toBe(longStatus(clone))
    expect(content(await status(clone))).toContain("have diverged")
    git(clone, home, ["reset", "-q", "--hard", "HEAD~1"])
    expect(content(await status(clone))).toBe(longStatus(clone))
    expect(content(await status(clone))).toContain("behind 'origin/main' by 1 commit")
  })

  test("merge conflicts (both modified, both added, deleted by us/them) and a concluded merge match git", async () => {
    const root = gitRepo(home, { "both.txt": "base\n", "ours-deletes.txt": "base\n", "theirs-deletes.txt": "base\n", "calm.txt": "calm\n" }, { commit: "base" })
    git(root, home, ["checkout", "-q", "-b", "side"])
    writeFileSync(join(root, "both.txt"), "side\n")
    writeFileSync(join(root, "ours-deletes.txt"), "side edit\n")
    git(root, home, ["rm", "-q", "theirs-deletes.txt"])
    writeFileSync(join(root, "added.txt"), "side added\n")
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "side"])
    git(root, home, ["checkout", "-q", "main"])
    writeFileSync(join(root, "both.txt"), "main\n")
    git(root, home, ["rm", "-q", "ours-deletes.txt"])
    writeFileSync(join(root, "theirs-deletes.txt"), "main edit\n")
    writeFileSync(join(root, "added.txt"), "main added\n")
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "main"])
    expect(() => git(root, home, ["merge", "side"])).toThrow()
    writeFileSync(join(root, "staged-during-merge.txt"), "x\n")
    git(root, home, ["add", "staged-during-merge.txt"])
    const short = await status(root, { short: true })
    expect(porcelain(root)).toContain("UU both.txt")
    expect(porcelain(root)).toContain("AA added.txt")
    expect(porcelain(root)).toContain("DU ours-deletes.txt")
    expect(porcelain(root)).toContain("UD theirs-deletes.txt")
    expect(content(short)).toBe(porcelain(root))
    expect(short.envelope.text).toContain("4 unmerged (conflicts)")
    expect(content(await status(root))).toBe(longStatus(root))
    // Resolved but not yet committed.
    git(root, home, ["add", "both.txt", "added.txt", "theirs-deletes.txt"])
    git(root, home, ["rm", "-q", "ours-deletes.txt"])
    expect(content(await status(root))).toBe(longStatus(root))
    expect(content(await status(root))).toContain("All conflicts fixed but you are still merging.")
  })

  test("a detached HEAD is named as git names it", async () => {
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
    git(root, home, ["checkout", "-q", "--detach"])
    const out = await status(root)
    expect(content(out)).toBe(longStatus(root))
    expect((out.envelope.data as { branch: unknown }).branch).toBeNull()
  })

  test("untracked folders collapse only when they hold no tracked file; ignored folders never show", async () => {
    const root = gitRepo(home, { "lib/a.txt": "a\n", ".gitignore": "node_modules/\n" }, { commit: "one" })
    writeFileSync(join(root, "lib", "b.txt"), "b\n")
    mkdirSync(join(root, "lib", "deep", "er"), { recursive: true })
    writeFileSync(join(root, "lib", "deep", "er", "c.txt"), "c\n")
    mkdirSync(join(root, "node_modules", "pkg"), { recursive: true })
    writeFileSync(join(root, "node_modules", "pkg", "index.js"), "x\n")
    const out = await status(root, { short: true })
    expect(content(out)).toBe(porcelain(root))
    expect(content(out)).toBe("?? lib/b.txt\n?? lib/deep/")
  })

  test("a mode change alone is a modification; with core.filemode off it is not", async () => {
    const root = gitRepo(home, { "run.sh": "echo hi\n" }, { commit: "one" })
    chmodSync(join(root, "run.sh"), 0o755)
    expect(content(await status(root, { short: true }))).toBe(" M run.sh")
    git(root, home, ["config", "core.filemode", "false"])
    expect(content(await status(root, { short: true }))).toBe(porcelain(root))
    expect(content(await status(root, { short: true }))).toBe("")
  })

  test("thousands of files: the same answer as git", async () => {
    const tree: Record<string, string> = {}
    for (let i = 0; i < 3000; i++) tree[`pkg${i % 30}/mod${Math.floor(i / 30)}/file${i}.ts`] = `export const v${i} = ${i}\n`
    const root = gitRepo(home, tree, { commit: "many" })
    for (let i = 0; i < 3000; i += 97) writeFileSync(join(root, `pkg${i % 30}/mod${Math.floor(i / 30)}/file${i}.ts`), `export const v${i} = -1\n`)
    git(root, home, ["rm", "-q", "pkg1/mod0/file1.ts"])
    git(root, home, ["mv", "pkg2/mod0/file2.ts", "pkg2/renamed.ts"])
    for (let i = 0; i < 50; i++) writeFileSync(join(root, `pkg3/new${i}.ts`), `x${i}\n`)
    mkdirSync(join(root, "fresh", "dir"), { recursive: true })
    writeFileSync(join(root, "fresh", "dir", "f.ts"), "f\n")
    const out = await status(root, { short: true })
    expect(content(out)).toBe(porcelain(root))
    expect(out.envelope.stats.unstaged).toBe(31)
    // Removed here rather than in the harness's afterAll, whose time limit is short for thousands of files.
    rmSync(root, { recursive: true, force: true })
  })

  test("outside a repository: NOT_FOUND with a hint to use git through Bash", async () => {
    const root = project({ "a.txt": "a\n" })
    const out = await status(root)
    expect(out.envelope.status).toBe("error")
    expect(out.envelope.error?.code).toBe("NOT_FOUND")
    expect(out.envelope.error?.message).toContain("Not a git repository")
    expect(out.envelope.text).toContain('Bash(command="git init")')
  })

  test("works from a subfolder of the repository (paths stay relative to the top)", async () => {
    const root = gitRepo(home, { "src/a.txt": lines("a") }, { commit: "one" })
    appendFileSync(join(root, "src", "a.txt"), "x\n")
    const out = await callTool(root, "git_status", { short: true }, { env, cwd: join(root, "src") })
    expect(content(out)).toBe(" M src/a.txt")
  })

  test("is allowed without asking (read-only)", async () => {
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
    const out = await callTool(root, "git_status", {}, { env, onAsk: () => Effect.succeed(false) })
    expect(out.envelope.status).toBe("success")
  })
})
}

describe("git_status on a clone that borrows objects (git clone --shared)", () => {
  const sharedClone = () => {
    const origin = gitRepo(home, { "a.txt": lines("a"), "b.txt": "b\n" }, { commit: "one" })
    const clone = project({}, { marker: false })
    git(clone, home, ["clone", "-q", "--shared", origin, "."])
    appendFileSync(join(clone, "a.txt"), "more\n")
    return clone
  }

  test("the git command line reads it like git does", async () => {
    const clone = sharedClone()
    const out = await callTool(clone, "git_status", { short: true }, { env: { HOME: home } })
    expect(out.envelope.status).toBe("success")
    expect(content(out)).toBe(porcelain(clone))
    const diff = await callTool(clone, "git_diff", {}, { env: { HOME: home } })
    expect(String((diff.envelope.data as { content: string }).content)).toBe(git(clone, home, ["diff"]).replace(/\n$/, ""))
  })

  test("git_add, git_commit and git_log work on it through the git command line", async () => {
    const clone = sharedClone()
    const add = await callTool(clone, "git_add", { paths: ["a.txt"] }, { env: { HOME: home } })
    expect(add.envelope.status).toBe("success")
    const commit = await callTool(clone, "git_commit", { message: "more a" }, { env: { HOME: home } })
    expect(commit.envelope.status).toBe("success")
    expect(git(clone, home, ["log", "-1", "--format=%s"]).trim()).toBe("more a")
    const log = await callTool(clone, "git_log", { oneline: true }, { env: { HOME: home } })
    expect(String((log.envelope.data as { content: string }).content)).toBe(git(clone, home, ["log", "--oneline"]).replace(/\n$/, ""))
  })

  test("without git the built-in reader follows the alternates too (more cases in git-fallback.test.ts)", async () => {
    const clone = sharedClone()
    const out = await callTool(clone, "git_status", { short: true }, { env: { HOME: home, ANVIL_GIT_BACKEND: "isomorphic" } })
    expect(out.envelope.status).toBe("success")
    expect(content(out)).toBe(porcelain(clone))
  })
})
