import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { callTool, project } from "../support/harness.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()

// Both backends: the git command line, and the built-in reader used when no git is installed.
for (const backend of ["cli", "isomorphic"] as const) {
  const env = { HOME: home, ANVIL_GIT_BACKEND: backend }
  describe(`where the git tools find their repository (${backend})`, () => {
    test("a bare repository is named as one, with no work tree, and the next steps (clone, worktree add)", async () => {
      const outer = project({}, { marker: false })
      git(outer, home, ["init", "-q", "--bare", "-b", "main", "r.git"])
      const bare = join(outer, "r.git")
      for (const name of ["git_status", "git_diff", "git_log", "git_add"]) {
        const out = await callTool(outer, name, name === "git_add" ? { paths: "." } : {}, { env, cwd: bare })
        expect(out.envelope.error?.code).toBe("NOT_FOUND")
        expect(out.envelope.error?.message).toContain("r.git is a bare git repository: it has no work tree")
        expect(out.envelope.text).toContain("git clone")
        expect(out.envelope.text).toContain("worktree add")
      }
      // Inside a repository's own .git folder, git finds no work tree either: the message names the work tree to use.
      const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
      const out = await callTool(root, "git_status", {}, { env, cwd: join(root, ".git", "refs") })
      expect(out.envelope.error?.message).toContain(`The working folder is inside .git, a git folder, which has no work tree of its own: the git tools work from the work tree. Start anvil in ${root}, the repository's work tree`)
      // A linked worktree's own git folder is no bare repository either.
      git(root, home, ["worktree", "add", "-q", `${root}-wt`])
      const linked = await callTool(root, "git_status", {}, { env, cwd: join(root, ".git", "worktrees", `${root.split("/").pop()}-wt`) })
      expect(linked.envelope.error?.message).toContain("a git folder, which has no work tree of its own")
      expect(linked.envelope.error?.message).toContain("Start anvil in the work tree this git folder belongs to.")
      rmSync(`${root}-wt`, { recursive: true, force: true })
    })

    test("GIT_DIR or GIT_WORK_TREE naming another repository is refused, saying why; naming this one changes nothing", async () => {
      const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
      const other = gitRepo(home, { "b.txt": "b\n" }, { commit: "two" })
      for (const extra of [{ GIT_DIR: join(other, ".git") }, { GIT_WORK_TREE: other }, { GIT_DIR: join(other, ".git"), GIT_WORK_TREE: other }]) {
        const out = await callTool(root, "git_log", {}, { env: { ...env, ...extra } })
        expect(out.envelope.error?.code).toBe("NOT_FOUND")
        expect(out.envelope.error?.message).toContain(`set in anvil's environment, but the working folder is in the repository at ${root}. git follows these variables; the git tools do not`)
        expect(out.envelope.error?.message).toContain(Object.entries(extra).map(([k, v]) => `${k}=${v}`).join(" and "))
      }
      // As git sets it for a hook that starts anvil: relative, the same repository.
      const same = await callTool(root, "git_log", { oneline: true }, { env: { ...env, GIT_DIR: ".git", GIT_WORK_TREE: "." } })
      expect(same.envelope.status).toBe("success")
      expect((same.envelope.data as { commits: Array<{ subject: string }> }).commits.map((c) => c.subject)).toEqual(["one"])
      // Outside any repository, set to one elsewhere (a bare repository of dotfiles): refused, not "no .git".
      const plain = project({}, { marker: false })
      const out = await callTool(plain, "git_status", {}, { env: { ...env, GIT_DIR: join(other, ".git"), GIT_WORK_TREE: plain } })
      expect(out.envelope.error?.message).toContain("but no work tree is found from the working folder")
    })
  })
}
