import { describe, expect, test, setDefaultTimeout, beforeAll } from "bun:test"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()
let env: Record<string, string> = { HOME: home }
const status = async (root: string) => callTool(root, "git_status", {}, { env })
const content = (o: Awaited<ReturnType<typeof status>>) => String((o.envelope.data as { content: string }).content).replace(/\n+$/, "")
const longStatus = (root: string) => git(root, home, ["status"]).replace(/\n+$/, "")
const fails = (root: string, args: ReadonlyArray<string>, extra: Record<string, string> = {}) => expect(() => git(root, home, args, extra)).toThrow()

/** main and b both change line 2 of f; b has two more commits that apply cleanly. */
const diverged = () => {
  const root = gitRepo(home, { f: "1\n2\n3\n" }, { commit: "c1" })
  git(root, home, ["checkout", "-q", "-b", "b"])
  writeFileSync(join(root, "f"), "1\nB\n3\n")
  git(root, home, ["commit", "-q", "-am", "cb"])
  for (const name of ["g", "h"]) {
    writeFileSync(join(root, name), `${name}\n`)
    git(root, home, ["add", name])
    git(root, home, ["commit", "-q", "-m", `add ${name}`])
  }
  git(root, home, ["checkout", "-q", "main"])
  writeFileSync(join(root, "f"), "1\nM\n3\n")
  git(root, home, ["commit", "-q", "-am", "cm"])
  return root
}

/** The long status is git's, word for word, at each step. */
const same = async (root: string, expected: string) => {
  const shown = content(await status(root))
  expect(shown).toBe(longStatus(root))
  expect(shown).toContain(expected)
}

// Both backends: the git command line, and the built-in reader used when no git is installed.
for (const backend of ["cli", "isomorphic"] as const) {
  describe(`git_status during an operation (${backend})`, () => {
    beforeAll(() => {
      env = { HOME: home, ANVIL_GIT_BACKEND: backend }
    })

    test("a rebase stopped on a conflict, resolved, and at an edit stop; with the apply backend too", async () => {
      const root = diverged()
      git(root, home, ["checkout", "-q", "b"])
      fails(root, ["rebase", "main"])
      await same(root, "You are currently rebasing branch 'b' on '")
      expect(content(await status(root))).not.toContain("git merge --abort")
      writeFileSync(join(root, "f"), "1\nR\n3\n")
      git(root, home, ["add", "f"])
      await same(root, '(all conflicts fixed: run "git rebase --continue")')
      const commit = await callTool(root, "git_commit", { message: "resolved" }, { env })
      expect(commit.envelope.error?.code).toBe("CONFLICT")
      expect(commit.envelope.text).toContain("git rebase --continue")
      git(root, home, ["rebase", "--abort"])

      fails(root, ["rebase", "-i", "main"], { GIT_SEQUENCE_EDITOR: "sed -i s/^pick/edit/" })
      git(root, home, ["rebase", "--skip"])
      await same(root, "You are currently editing a commit while rebasing branch 'b'")
      await same(root, "Last commands done (2 commands done):")
      git(root, home, ["rebase", "--abort"])

      fails(root, ["rebase", "--apply", "main"])
      await same(root, "rebase in progress; onto ")
      git(root, home, ["rebase", "--abort"])
    })

    test("git_commit at an interactive rebase's edit stop commits on the detached HEAD, as git does; the rebase goes on from it", async () => {
      const root = gitRepo(home, { f: "1\n" }, { commit: "c1" })
      for (const name of ["g", "h"]) {
        writeFileSync(join(root, name), `${name}\n`)
        git(root, home, ["add", name])
        git(root, home, ["commit", "-q", "-m", `add ${name}`])
      }
      git(root, home, ["rebase", "-q", "-i", "HEAD~2"], { GIT_SEQUENCE_EDITOR: "sed -i 1s/^pick/edit/" })
      await same(root, "You are currently editing a commit while rebasing branch 'main'")
      const stop = git(root, home, ["rev-parse", "HEAD"]).trim()
      writeFileSync(join(root, "between"), "inserted\n")
      git(root, home, ["add", "between"])
      const commit = await callTool(root, "git_commit", { message: "inserted at the edit stop" }, { env })
      expect(commit.envelope.status).toBe("success")
      const oid = (commit.envelope.data as { commit: string }).commit
      expect(commit.envelope.text).toContain(`[detached HEAD ${oid.slice(0, 7)}] inserted at the edit stop`)
      expect(commit.envelope.text).toContain("git rebase --continue")
      expect(commit.envelope.data).toMatchObject({ branch: null, detached: true, rebase: true })
      // The commit sits on the stop's commit, HEAD still detached; the rebase then finishes on top of it.
      expect(git(root, home, ["rev-parse", "HEAD", "HEAD~1"]).trim().split("\n")).toEqual([oid, stop])
      expect(git(root, home, ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("HEAD")
      git(root, home, ["rebase", "--continue"])
      expect(git(root, home, ["log", "--format=%s"]).trim().split("\n")).toEqual(["add h", "inserted at the edit stop", "add g", "c1"])
      // A pick stopped on a conflict still is no place for git_commit (the first test).
    })

    test("a cherry-pick (one commit and a sequence), a revert, an am session and a bisect", async () => {
      const root = diverged()
      fails(root, ["cherry-pick", "b~2"])
      await same(root, "You are currently cherry-picking commit ")
      git(root, home, ["add", "f"])
      await same(root, '(all conflicts fixed: run "git cherry-pick --continue")')
      const commit = await callTool(root, "git_commit", { message: "picked" }, { env })
      expect(commit.envelope.error?.code).toBe("CONFLICT")
      expect(commit.envelope.text).toContain("git cherry-pick --continue")
      git(root, home, ["cherry-pick", "--abort"])
      fails(root, ["cherry-pick", "b~2", "b~1"])
      await same(root, "Cherry-pick currently in progress.")
      git(root, home, ["cherry-pick", "--abort"])

      // Reverting the first commit deletes f, which main changed since.
      fails(root, ["revert", "--no-edit", "HEAD~1"])
      await same(root, "You are currently reverting commit ")
      git(root, home, ["revert", "--abort"])

      const patch = git(root, home, ["format-patch", "-1", "--stdout", "b~2"])
      writeFileSync(join(root, "..", "p.patch"), patch)
      fails(root, ["am", join(root, "..", "p.patch")])
      await same(root, "You are in the middle of an am session.")
      git(root, home, ["am", "--abort"])

      git(root, home, ["bisect", "start"])
      git(root, home, ["bisect", "bad"])
      git(root, home, ["bisect", "good", "HEAD~1"])
      await same(root, "You are currently bisecting, started from branch 'main'.")
      git(root, home, ["bisect", "reset"])
    })

    test("advice.statusHints off: no advice lines and closing lines without their parenthesis, as git prints them", async () => {
      const root = diverged()
      git(root, home, ["config", "advice.statusHints", "false"])
      writeFileSync(join(root, "untracked.txt"), "u\n")
      await same(root, "nothing added to commit but untracked files present")
      expect(content(await status(root))).not.toContain("(use")
      writeFileSync(join(root, "f"), "changed\n")
      await same(root, "no changes added to commit")
      git(root, home, ["checkout", "-q", "--", "f"])
      git(root, home, ["checkout", "-q", "b"])
      fails(root, ["rebase", "main"])
      await same(root, "You are currently rebasing branch 'b' on '")
      expect(content(await status(root))).not.toContain("(use")
      git(root, home, ["rebase", "--abort"])
    })

    test("status.renames and diff.renames off: a staged rename is a deletion and an addition in git_status and git_diff, as in git", async () => {
      const root = gitRepo(home, { "a.txt": "1\n2\n3\n4\n5\n" }, { commit: "one" })
      git(root, home, ["mv", "a.txt", "b.txt"])
      const short = async () => content(await callTool(root, "git_status", { short: true }, { env }))
      const staged = async () => content(await callTool(root, "git_diff", { staged: true }, { env }))
      const gitStaged = () => git(root, home, ["diff", "--staged"]).replace(/\n+$/, "")
      expect(await short()).toBe("R  a.txt -> b.txt")
      git(root, home, ["config", "status.renames", "false"])
      expect(await short()).toBe("D  a.txt\nA  b.txt")
      expect(await short()).toBe(git(root, home, ["status", "--porcelain"]).replace(/\n+$/, ""))
      expect(await staged()).toBe(gitStaged())
      expect(await staged()).toContain("rename from a.txt")
      git(root, home, ["config", "diff.renames", "false"])
      git(root, home, ["config", "--unset", "status.renames"])
      expect(await short()).toBe("D  a.txt\nA  b.txt")
      expect(await staged()).toBe(gitStaged())
      expect(await staged()).toContain("deleted file mode")
    })

    test("a file marked assume-unchanged is not reported, changed or deleted, as git reports it (the built-in reader showed it modified)", async () => {
      const root = gitRepo(home, { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" }, { commit: "one" })
      git(root, home, ["update-index", "--assume-unchanged", "a.txt", "b.txt"])
      writeFileSync(join(root, "a.txt"), "changed\n")
      rmSync(join(root, "b.txt"))
      writeFileSync(join(root, "c.txt"), "changed\n")
      const short = content(await callTool(root, "git_status", { short: true }, { env }))
      expect(short).toBe(git(root, home, ["status", "--porcelain"]).replace(/\n+$/, ""))
      expect(short).toBe(" M c.txt")
      const diff = content(await callTool(root, "git_diff", {}, { env }))
      expect(diff).toBe(git(root, home, ["diff"]).replace(/\n+$/, ""))
      expect(diff).not.toContain("a.txt")
    })

    test("a conflict outside any operation (a stash popped) gets no merge advice", async () => {
      const root = gitRepo(home, { f: "1\n2\n3\n" }, { commit: "c1" })
      writeFileSync(join(root, "f"), "1\nS\n3\n")
      git(root, home, ["stash", "-q"])
      writeFileSync(join(root, "f"), "1\nZ\n3\n")
      git(root, home, ["commit", "-q", "-am", "z"])
      fails(root, ["stash", "pop"])
      await same(root, "Unmerged paths:")
      expect(content(await status(root))).not.toContain("git merge --abort")
    })

    test("a detached HEAD is named by the tag or ref it was checked out at, and 'from' once it moved", async () => {
      const root = diverged()
      git(root, home, ["tag", "light", "HEAD~1"])
      git(root, home, ["tag", "-a", "annotated", "-m", "a tag", "b~1"])
      git(root, home, ["checkout", "-q", "light"])
      await same(root, "HEAD detached at light")
      const short = await callTool(root, "git_status", { short: true }, { env })
      expect(short.envelope.text).toContain("HEAD detached at light: nothing to commit, working tree clean.")
      git(root, home, ["checkout", "-q", "annotated"])
      await same(root, "HEAD detached at annotated")
      writeFileSync(join(root, "new"), "n\n")
      git(root, home, ["add", "new"])
      git(root, home, ["commit", "-q", "-m", "on top"])
      await same(root, "HEAD detached from annotated")
      git(root, home, ["checkout", "-q", "b~1"])
      await same(root, "HEAD detached at ")
      git(root, home, ["checkout", "-q", "--detach", "main"])
      await same(root, "HEAD detached at ")
    })
  })
}

// Both backends, and git itself, on .git entries that form no repository.
for (const backend of ["cli", "isomorphic"] as const) {
  describe(`a .git that is no repository (${backend})`, () => {
    beforeAll(() => {
      env = { HOME: home, ANVIL_GIT_BACKEND: backend }
    })

    test("a .git file naming a missing git folder is NOT_FOUND saying so (the built-in reader showed an empty repository)", async () => {
      const root = project({ ".git": "gitdir: /nonexistent/anvil-moved\n", "a.txt": "a\n" }, { marker: false })
      expect(() => git(root, home, ["status"])).toThrow()
      for (const name of ["git_status", "git_diff", "git_log"]) {
        const out = await callTool(root, name, {}, { env })
        expect(out.envelope.error?.code).toBe("NOT_FOUND")
        expect(out.envelope.error?.message).toContain("/nonexistent/anvil-moved, which is missing or no git folder")
        expect(out.envelope.text).toContain('Bash(command="cat .git")')
      }
    })

    test("an empty .git folder is passed over as git passes over it: inside a repository the outer one answers, and it is no nested repository", async () => {
      const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
      mkdirSync(join(root, "sub", ".git"), { recursive: true })
      mkdirSync(join(root, "other", ".git"), { recursive: true })
      writeFileSync(join(root, "other", "f.txt"), "f\n")
      const out = await callTool(join(root, "sub"), "git_status", { short: true }, { env })
      expect(out.envelope.status).toBe("success")
      expect(content(out)).toBe(git(root, home, ["status", "--porcelain"]).replace(/\n+$/, ""))
      expect(content(out)).toBe("?? other/")
    })
  })
}
