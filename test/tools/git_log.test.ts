import { describe, expect, test, setDefaultTimeout, beforeAll } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project, tempDir } from "../support/harness.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"
import { managedCount } from "../../src/process/managed-registry.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()
let env: Record<string, string> = { HOME: home }
const log = (root: string, params: Record<string, unknown> = {}) => callTool(root, "git_log", params, { env })
const content = (o: Awaited<ReturnType<typeof log>>) => String((o.envelope.data as { content: string }).content)
const gitLog = (root: string, args: ReadonlyArray<string> = []) => git(root, home, ["log", ...args]).replace(/\n$/, "")

/** A history with dates in several zones, a multi-paragraph message and a merge. */
const history = () => {
  const root = gitRepo(home)
  const commit = (file: string, message: string, date: string) => {
    writeFileSync(join(root, file), `${file} ${date}\n`)
    git(root, home, ["add", file])
    git(root, home, ["commit", "-q", "-m", message], { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date })
  }
  commit("a.txt", "First commit", "2024-03-01T09:05:07+05:30")
  commit("b.txt", "Second: with a body\n\nThe body explains\nover two lines.\n\n  Indented paragraph.", "2024-03-02T10:00:00-08:00")
  git(root, home, ["checkout", "-q", "-b", "side"])
  commit("side.txt", "Side work\nwrapped subject line", "2024-03-03T11:00:00+00:00")
  git(root, home, ["checkout", "-q", "main"])
  commit("c.txt", "Main work", "2024-03-04T12:00:00+01:00")
  git(root, home, ["merge", "-q", "--no-ff", "side", "-m", "Merge branch 'side'"], { GIT_AUTHOR_DATE: "2024-03-05T13:00:00+02:00", GIT_COMMITTER_DATE: "2024-03-05T13:00:00+02:00" })
  return root
}

// Both backends answer every case: the git command line, and isomorphic-git (used when no git is installed).
for (const backend of ["cli", "isomorphic"] as const) {
describe(`git_log (${backend})`, () => {
  beforeAll(() => {
    env = { HOME: home, ANVIL_GIT_BACKEND: backend }
  })
  test("is `git log`: full hashes, Merge line, author, dates in the author's zone, indented messages", async () => {
    const root = history()
    const out = await log(root)
    const expected = gitLog(root)
    expect(expected).toContain("Merge: ")
    expect(expected).toContain("Date:   Fri Mar 1 09:05:07 2024 +0530")
    expect(content(out)).toBe(expected)
    expect(out.envelope.status).toBe("success")
    expect(out.envelope.text).toContain("5 commits.")
  })

  test("oneline is `git log --oneline` (subject = first paragraph joined)", async () => {
    const root = history()
    const out = await log(root, { oneline: true })
    expect(content(out)).toBe(gitLog(root, ["--oneline", "--no-decorate"]))
    expect(content(out)).toContain("Side work wrapped subject line")
    const commits = (out.envelope.data as { commits: Array<{ subject: string; author: string }> }).commits
    expect(commits[0]).toEqual(expect.objectContaining({ subject: "Merge branch 'side'", author: "Test Author" }))
  })

  test("messages git prints its own way: an empty one, leading blank lines, trailing spaces, CRLF, tabs, an indented subject", async () => {
    const root = gitRepo(home)
    const messages = ["", "\n\n  indented subject  \nsecond line\t\n\n\tTabbed\tbody  \n\n\n", "crlf subject\r\n\r\nbody\r\n", "   \n", "x\ty\n"]
    for (const [i, message] of messages.entries()) {
      writeFileSync(join(root, "f.txt"), `${i}\n`)
      git(root, home, ["add", "f.txt"])
      git(root, home, ["commit", "-q", "--cleanup=verbatim", "--allow-empty-message", "-m", message])
    }
    expect(content(await log(root))).toBe(gitLog(root))
    const oneline = await log(root, { oneline: true })
    expect(content(oneline)).toBe(gitLog(root, ["--oneline", "--no-decorate"]))
    const subjects = (oneline.envelope.data as { commits: Array<{ subject: string }> }).commits.map((c) => c.subject)
    expect(subjects.join("\n")).toBe(gitLog(root, ["--format=%s"]))
  })

  test("limit cuts the history: partial, truncated, with a hint for more", async () => {
    const root = history()
    const out = await log(root, { limit: 2, oneline: true })
    expect(out.envelope.status).toBe("partial")
    expect(content(out)).toBe(gitLog(root, ["--oneline", "--no-decorate", "-n", "2"]))
    expect((out.envelope.data as { truncated: boolean }).truncated).toBe(true)
    // The total is stated (git counts it), and the hint asks for enough to see all of it.
    const total = gitLog(root, ["--oneline"]).split("\n").length
    expect(out.envelope.text).toContain(`Showing the newest 2 commits of ${total} (TRUNCATED: ${total - 2} older not shown).`)
    expect((out.envelope.data as { total_commits: number }).total_commits).toBe(total)
    expect(out.envelope.text).toContain(`GitLog(limit=${Math.max(10, total)}, oneline=true)`)
    expect(out.meta.truncation?.reason).toBe("limit")
  })

  test("defaults to 20 commits", async () => {
    const root = gitRepo(home, { "a.txt": "0\n" }, { commit: "c0" })
    for (let i = 1; i <= 24; i++) {
      writeFileSync(join(root, "a.txt"), `${i}\n`)
      git(root, home, ["commit", "-q", "-am", `c${i}`], { GIT_COMMITTER_DATE: `2024-01-01T00:00:${String(i).padStart(2, "0")}Z` })
    }
    const out = await log(root, { oneline: true })
    expect(content(out).split("\n")).toHaveLength(20)
    expect(content(out)).toBe(gitLog(root, ["--oneline", "--no-decorate", "-n", "20"]))
  })

  test("a shallow clone (git clone --depth) says its history is cut, in a field and the text; a full clone does not", async () => {
    const origin = gitRepo(home, { "a.txt": "0\n" }, { commit: "c0" })
    for (let i = 1; i <= 4; i++) {
      writeFileSync(join(origin, "a.txt"), `${i}\n`)
      git(origin, home, ["commit", "-q", "-am", `c${i}`])
    }
    const clone = join(tempDir("anvil-shallow-"), "clone")
    git(origin, home, ["clone", "-q", "--depth", "2", `file://${origin}`, clone])
    const cutAt = git(clone, home, ["rev-parse", "HEAD~1"]).trim()
    const all = await log(clone, { oneline: true })
    expect(content(all)).toBe(gitLog(clone, ["--oneline", "--no-decorate"]))
    expect(all.envelope.data).toMatchObject({ truncated: false, shallow: true, shallow_boundary: [cutAt] })
    expect(all.envelope.text).toContain(`2 commits. History is cut: this is a shallow clone (git clone --depth), so commits before ${cutAt.slice(0, 7)} are not in this repository; \`git fetch --unshallow\` fetches them.`)
    // Cut by the limit too: the total counted is this clone's, and says so.
    const one = await log(clone, { limit: 1 })
    expect(one.envelope.data).toMatchObject({ truncated: true, total_commits: 2, shallow: true })
    expect(one.envelope.text).toContain("are not in this repository and not counted;")
    const full = await log(origin)
    expect(full.envelope.data).not.toHaveProperty("shallow")
    expect(full.envelope.text).not.toContain("shallow")
  })

  test("an empty repository has no commits yet; bad limits and outside a repository are errors", async () => {
    const empty = gitRepo(home)
    const out = await log(empty)
    expect(out.envelope.status).toBe("success")
    expect(out.envelope.text).toContain("No commits yet.")
    expect((await log(empty, { limit: 0 })).envelope.error?.code).toBe("INVALID_PARAM")
    expect((await log(project({}))).envelope.error?.code).toBe("NOT_FOUND")
  })
})
}

describe("git tools through git: the processes of a call", () => {
  test("status, diff and a cut log (git log, then git rev-list for the total) each leave no process tree for the exit sweep", async () => {
    env = { HOME: home, ANVIL_GIT_BACKEND: "cli" }
    const root = history()
    const before = managedCount()
    const out = await log(root, { limit: 2 })
    expect((out.envelope.data as { total_commits: number }).total_commits).toBe(5)
    // An unborn branch: no history, which is no error.
    expect((await log(gitRepo(home))).envelope.text).toContain("No commits yet.")
    for (const name of ["git_status", "git_diff"]) expect((await callTool(root, name, {}, { env })).envelope.status).toBe("success")
    expect(managedCount()).toBe(before)
  })
})
