import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { appendFileSync, chmodSync, mkdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { answers as parityAnswers, expectSameAnswers as sameAnswers, STATUS_AND_DIFF } from "../support/git-parity.ts"
import { busyRepo, git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(120_000)

const home = gitHome()

const answers = (root: string, name: string, params: Record<string, unknown>) => parityAnswers(home, root, name, params)
const expectSameAnswers = (root: string, calls = STATUS_AND_DIFF) => sameAnswers(home, root, calls)

describe("git tools: the git command line and isomorphic-git give the same answers", () => {
  test("every kind of change (renames, deletions, typechange, mode change, quoted names, untracked folders)", async () => {
    const root = busyRepo(home)
    await expectSameAnswers(root)
    rmSync(root, { recursive: true, force: true })
  })

  test("a repository of thousands of files with thousands of changes: edits with and without a final newline, binary files, deletions, spaces and non-ASCII names, untracked folders", async () => {
    const tree: Record<string, string> = {}
    for (let i = 0; i < 2000; i++) tree[`d${i % 25}/sub${i % 3}/f${i}${i % 50 === 0 ? " spaced" : i % 70 === 0 ? "-ñé" : ""}.txt`] = lines(`file ${i}`, 6)
    const root = gitRepo(home, tree, { commit: "many" })
    const file = (i: number) => join(root, Object.keys(tree)[i]!)
    for (let i = 0; i < 2000; i += 3) appendFileSync(file(i), i % 2 === 0 ? "appended\n" : "no final newline")
    for (let i = 1; i < 2000; i += 29) unlinkSync(file(i))
    for (let i = 2; i < 2000; i += 97) writeFileSync(file(i), new Uint8Array([0, 1, 2, 255, 0, 10]))
    chmodSync(file(5), 0o755)
    rmSync(file(8))
    symlinkSync("elsewhere", file(8))
    git(root, home, ["mv", Object.keys(tree)[11]!, "moved here.txt"])
    git(root, home, ["add", Object.keys(tree)[14]!, Object.keys(tree)[17]!])
    for (let i = 0; i < 300; i++) {
      mkdirSync(join(root, `new${i % 7}`, `deep${i % 2}`), { recursive: true })
      writeFileSync(join(root, `new${i % 7}`, `deep${i % 2}`, `n${i}.txt`), `${i}\n`)
      if (i % 10 === 0) writeFileSync(join(root, `d${i % 25}`, `untracked ${i}-ü.txt`), "u\n")
    }
    await expectSameAnswers(root)
    rmSync(root, { recursive: true, force: true })
  })

  test("index entries isomorphic-git does not read: intent-to-add (git add -N), skip-worktree (sparse checkout), empty files added and deleted", async () => {
    const root = gitRepo(home, { "in/a.txt": lines("a"), "out/b.txt": lines("b"), "out/c.txt": lines("c"), "gone.txt": "" }, { commit: "first" })
    writeFileSync(join(root, "intent.txt"), "planned\n")
    git(root, home, ["add", "-N", "intent.txt"])
    writeFileSync(join(root, "empty.txt"), "")
    git(root, home, ["add", "empty.txt"])
    git(root, home, ["rm", "-q", "gone.txt"])
    git(root, home, ["sparse-checkout", "set", "in"])
    appendFileSync(join(root, "in/a.txt"), "more\n")
    await expectSameAnswers(root)
    rmSync(root, { recursive: true, force: true })
  })

  test("status.showUntrackedFiles: all lists every untracked file, no lists none (and says so as git does)", async () => {
    const root = gitRepo(home, { "t.txt": "t\n" }, { commit: "first" })
    mkdirSync(join(root, "new/deep"), { recursive: true })
    writeFileSync(join(root, "new/deep/a.txt"), "a\n")
    writeFileSync(join(root, "new/b.txt"), "b\n")
    git(root, home, ["config", "status.showUntrackedFiles", "all"])
    await expectSameAnswers(root)
    git(root, home, ["config", "status.showUntrackedFiles", "no"])
    await expectSameAnswers(root)
    appendFileSync(join(root, "t.txt"), "more\n")
    git(root, home, ["add", "t.txt"])
    await expectSameAnswers(root)
    rmSync(root, { recursive: true, force: true })
  })

  test("submodules through git: new commits, modified and untracked content noted as git status notes them", async () => {
    const sub = gitRepo(home, { "x.txt": "x\n" }, { commit: "sub" })
    const root = gitRepo(home, { "t.txt": "t\n" }, { commit: "first" })
    git(root, home, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "dirty"])
    git(root, home, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "moved"])
    git(root, home, ["commit", "-q", "-m", "subs"])
    appendFileSync(join(root, "dirty/x.txt"), "more\n")
    writeFileSync(join(root, "dirty/new.txt"), "n\n")
    writeFileSync(join(root, "moved/x.txt"), "y\n")
    git(join(root, "moved"), home, ["commit", "-q", "-am", "next"])
    const { cli } = await answers(root, "git_status", {})
    const text = String((cli.data as { content: string }).content)
    expect(text).toContain("modified:   dirty (modified content, untracked content)")
    expect(text).toBe(git(root, home, ["status"]).replace(/\n+$/, ""))
    rmSync(root, { recursive: true, force: true })
    rmSync(sub, { recursive: true, force: true })
  })

  test("a SHA-256 repository: read through git; without git the built-in reader says it cannot read it", async () => {
    const root = project({ "f.txt": "a\n" }, { marker: false })
    git(root, home, ["init", "-q", "-b", "main", "--object-format=sha256"])
    git(root, home, ["add", "f.txt"])
    git(root, home, ["commit", "-q", "-m", "one"])
    appendFileSync(join(root, "f.txt"), "b\n")
    const { cli, iso } = await answers(root, "git_status", {})
    expect(String((cli.data as { content: string }).content)).toBe(git(root, home, ["status"]).replace(/\n+$/, ""))
    expect(iso.status).toBe("error")
    expect(iso.text).toContain("SHA-256")
    expect(iso.text).not.toContain("internal error")
    rmSync(root, { recursive: true, force: true })
  })

  test("diff.renames = copies: staged copies from modified and deleted files (exact and inexact) show as git shows them", async () => {
    const root = gitRepo(home, { "a.txt": lines("a"), "m.txt": lines("m"), "keep.txt": lines("k") }, { commit: "one" })
    git(root, home, ["config", "diff.renames", "copies"])
    // m.txt is modified and copied (a copy from a kept file); a.txt is deleted and taken by four files: the last in path order is its rename.
    writeFileSync(join(root, "m-copy.txt"), lines("m"))
    appendFileSync(join(root, "m.txt"), "more\n")
    for (const name of ["b.txt", "c.txt"]) writeFileSync(join(root, name), lines("a"))
    writeFileSync(join(root, "d.txt"), lines("a", 19))
    writeFileSync(join(root, "e.txt"), `${lines("a")}x\n`)
    git(root, home, ["rm", "-q", "a.txt"])
    git(root, home, ["add", "."])
    const raw = git(root, home, ["diff", "--cached", "--raw"])
    expect(raw).toContain("C100\tm.txt\tm-copy.txt")
    expect(raw).toMatch(/C100\ta\.txt\tb\.txt[\s\S]*C100\ta\.txt\tc\.txt[\s\S]*C0\d\d\ta\.txt\td\.txt[\s\S]*R0\d\d\ta\.txt\te\.txt/)
    await expectSameAnswers(root)
    const { cli } = await answers(root, "git_status", {})
    expect(String((cli.data as { content: string }).content)).toContain("copied:     m.txt -> m-copy.txt")
    const diff = await answers(root, "git_diff", { staged: true })
    expect((diff.cli.data as { files: Array<{ path: string; status: string }> }).files).toContainEqual(expect.objectContaining({ path: "b.txt", old_path: "a.txt", status: "copied" }))
    // status.renames = true wins for status: renames only, as git.
    git(root, home, ["config", "status.renames", "true"])
    await expectSameAnswers(root)
    rmSync(root, { recursive: true, force: true })
  })

  test("a linked worktree (git worktree add): history, status and diffs read through the common dir; a commit takes the repository's config and hooks", async () => {
    const main = gitRepo(home, { "f.txt": lines("f"), "g.txt": lines("g") }, { commit: "first" })
    git(main, home, ["config", "user.name", "Repo Config"])
    git(main, home, ["config", "user.email", "repo@example.test"])
    writeFileSync(join(main, ".git", "hooks", "pre-commit"), `#!/bin/sh\necho ran >> "${join(main, "hook.log")}"\n`, { mode: 0o755 })
    const linked = `${main}-linked`
    git(main, home, ["worktree", "add", "-q", linked, "-b", "side"])
    appendFileSync(join(linked, "f.txt"), "more\n")
    writeFileSync(join(linked, "new.txt"), "new\n")
    git(linked, home, ["add", "g.txt", "new.txt"])
    unlinkSync(join(linked, "g.txt"))
    await expectSameAnswers(linked, [...STATUS_AND_DIFF, ["git_log", {}, ["log"]], ["git_log", { oneline: true }, ["log", "--oneline"]]])
    for (const backend of ["isomorphic", "cli"]) {
      appendFileSync(join(linked, "f.txt"), `${backend}\n`)
      const env = { HOME: home, ANVIL_GIT_BACKEND: backend }
      expect((await callTool(linked, "git_add", { paths: ["f.txt"] }, { env })).envelope.status).toBe("success")
      expect((await callTool(linked, "git_commit", { message: `by ${backend}` }, { env })).envelope.status).toBe("success")
    }
    expect(git(linked, home, ["log", "-2", "--format=%an <%ae> %s"])).toBe("Repo Config <repo@example.test> by cli\nRepo Config <repo@example.test> by isomorphic\n")
    expect(git(main, home, ["log", "-1", "--format=%s", "side"])).toBe("by cli\n")
    expect(readFileSync(join(main, "hook.log"), "utf8")).toBe("ran\nran\n")
    rmSync(linked, { recursive: true, force: true })
    rmSync(main, { recursive: true, force: true })
  })
})
