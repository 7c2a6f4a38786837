import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
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
    test("a bare repository is named as one, with no work tree, and the next steps (clone, worktree add); git_log reads its history", async () => {
      const outer = project({}, { marker: false })
      git(outer, home, ["init", "-q", "--bare", "-b", "main", "r.git"])
      const bare = join(outer, "r.git")
      for (const name of ["git_status", "git_diff", "git_add", "git_commit"]) {
        const out = await callTool(outer, name, name === "git_add" ? { paths: "." } : name === "git_commit" ? { message: "m" } : {}, { env, cwd: bare })
        expect(out.envelope.error?.code).toBe("NOT_FOUND")
        expect(out.envelope.error?.message).toContain("r.git is a bare git repository: it has no work tree")
        expect(out.envelope.error?.message).toContain("git_log works here")
        expect(out.envelope.text).toContain("git clone")
        expect(out.envelope.text).toContain("worktree add")
      }
      // git log needs no work tree: an empty bare repository has no commits, one with history shows it as git does.
      const empty = await callTool(outer, "git_log", {}, { env, cwd: bare })
      expect(empty.envelope.status).toBe("success")
      expect(empty.envelope.text).toContain("No commits yet.")
      const source = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
      writeFileSync(join(source, "b.txt"), "b\n")
      git(source, home, ["add", "b.txt"])
      git(source, home, ["commit", "-q", "-m", "second"])
      git(outer, home, ["clone", "-q", "--bare", source, "full.git"])
      for (const cwd of [join(outer, "full.git"), join(outer, "full.git", "refs")]) {
        const log = await callTool(outer, "git_log", { oneline: true }, { env, cwd })
        expect(log.envelope.status).toBe("success")
        expect((log.envelope.data as { content: string }).content).toBe(git(join(outer, "full.git"), home, ["log", "--oneline"]).replace(/\n$/, ""))
      }
      // Inside a work tree's .git folder too, as `cd .git && git log` works.
      const inGitDir = await callTool(source, "git_log", { oneline: true }, { env, cwd: join(source, ".git") })
      expect((inGitDir.envelope.data as { commits: Array<{ subject: string }> }).commits.map((c) => c.subject)).toEqual(["second", "first"])
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

    test("GIT_DIR or GIT_WORK_TREE naming another repository is refused with a code that says why; naming this one changes nothing", async () => {
      const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "one" })
      const other = gitRepo(home, { "b.txt": "b\n" }, { commit: "two" })
      // Outside the project: ACCESS_DENIED, as every tool refuses a place outside it.
      for (const extra of [{ GIT_DIR: join(other, ".git") }, { GIT_WORK_TREE: other }, { GIT_DIR: join(other, ".git"), GIT_WORK_TREE: other }]) {
        const out = await callTool(root, "git_log", {}, { env: { ...env, ...extra } })
        expect(out.envelope.error?.code).toBe("ACCESS_DENIED")
        expect(out.envelope.error?.message).toContain(`set in anvil's environment, but the working folder is in the repository at ${root}. git follows these variables; the git tools do not`)
        expect(out.envelope.error?.message).toContain(`outside the project (the project is ${root})`)
        expect(out.envelope.error?.message).toContain(Object.entries(extra).map(([k, v]) => `${k}=${v}`).join(" and "))
        expect(out.envelope.text).toContain(`env -u ${Object.keys(extra).join(" -u ")} git status`)
      }
      // Another repository inside the project (a nested one): CONFLICT, the environment and the working folder disagree.
      mkdirSync(join(root, "inner"))
      git(join(root, "inner"), home, ["init", "-q", "-b", "main"])
      const nested = await callTool(root, "git_status", {}, { env: { ...env, GIT_DIR: "inner/.git" } })
      expect(nested.envelope.error?.code).toBe("CONFLICT")
      expect(nested.envelope.error?.message).toContain("GIT_DIR=inner/.git is set in anvil's environment, but the working folder is in the repository at")
      // Naming no repository at all: NOT_FOUND, as git itself stops there.
      const nothing = await callTool(root, "git_diff", {}, { env: { ...env, GIT_DIR: join(root, "no-such") } })
      expect(nothing.envelope.error?.code).toBe("NOT_FOUND")
      expect(nothing.envelope.error?.message).toContain(`GIT_DIR=${join(root, "no-such")} is set in anvil's environment but names no git repository`)
      // As git sets it for a hook that starts anvil: relative, the same repository.
      const same = await callTool(root, "git_log", { oneline: true }, { env: { ...env, GIT_DIR: ".git", GIT_WORK_TREE: "." } })
      expect(same.envelope.status).toBe("success")
      expect((same.envelope.data as { commits: Array<{ subject: string }> }).commits.map((c) => c.subject)).toEqual(["one"])
      // Outside any repository, set to one elsewhere (a bare repository of dotfiles): refused, not "no .git".
      const plain = project({}, { marker: false })
      const out = await callTool(plain, "git_status", {}, { env: { ...env, GIT_DIR: join(other, ".git"), GIT_WORK_TREE: plain } })
      expect(out.envelope.error?.code).toBe("ACCESS_DENIED")
      expect(out.envelope.error?.message).toContain("but no work tree is found from the working folder")
    })
  })
}
