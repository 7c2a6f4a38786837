import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool } from "../support/harness.ts"
import { expectSameAnswers } from "../support/git-parity.ts"
import { git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()

/**
 * A repository whose own index stages an edit of a.txt, and a second index (alt-index, a copy of HEAD's) that
 * stages an edit of b.txt instead: what the tools show depends on which one GIT_INDEX_FILE names.
 */
const twoIndexes = () => {
  const root = gitRepo(home, { "a.txt": lines("a"), "b.txt": lines("b"), "sub/c.txt": lines("c") }, { commit: "first" })
  const alt = join(root, ".git", "alt-index")
  copyFileSync(join(root, ".git", "index"), alt)
  writeFileSync(join(root, "a.txt"), lines("A"))
  git(root, home, ["add", "a.txt"])
  writeFileSync(join(root, "b.txt"), lines("B"))
  git(root, home, ["add", "b.txt"], { GIT_INDEX_FILE: alt })
  writeFileSync(join(root, "sub/c.txt"), lines("C"))
  return { root, alt }
}

/** The paths staged in an index, as git lists them. */
const staged = (root: string, env: Record<string, string> = {}) => git(root, home, ["diff", "--cached", "--name-only"], env).trim().split("\n").filter((l) => l !== "")

describe("GIT_INDEX_FILE: the git tools use the index it names, as git does", () => {
  test("status and diffs read that index, through git and through the built-in reader alike", async () => {
    const { root, alt } = twoIndexes()
    await expectSameAnswers(home, root, undefined, { GIT_INDEX_FILE: alt })
    // The default index still answers without it.
    await expectSameAnswers(home, root)
  })

  // Both backends stage and commit: the git command line, and isomorphic-git (used when no git is installed).
  for (const backend of ["cli", "isomorphic"] as const) {
    test(`git_add and git_commit write that index and leave the repository's own alone (${backend})`, async () => {
      const { root, alt } = twoIndexes()
      const env = { HOME: home, ANVIL_GIT_BACKEND: backend, GIT_INDEX_FILE: alt }
      const add = await callTool(root, "git_add", { paths: "sub" }, { env })
      expect(add.envelope.status).toBe("success")
      expect(staged(root, { GIT_INDEX_FILE: alt })).toEqual(["b.txt", "sub/c.txt"])
      expect(staged(root)).toEqual(["a.txt"])
      const commit = await callTool(root, "git_commit", { message: "from the other index" }, { env })
      expect(commit.envelope.status).toBe("success")
      expect(git(root, home, ["show", "--name-only", "--format=%s", "HEAD"]).trim().split("\n")).toEqual(["from the other index", "", "b.txt", "sub/c.txt"])
      // The commit's index is the one named: nothing left staged there; the repository's own index was not written.
      expect(staged(root, { GIT_INDEX_FILE: alt })).toEqual([])
      expect(git(root, home, ["ls-files", "-s", "a.txt"])).not.toBe(git(root, home, ["ls-files", "-s", "a.txt"], { GIT_INDEX_FILE: alt }))
    })

    test(`a relative GIT_INDEX_FILE is taken from the work tree's top, as git takes it, also from a subfolder; a missing one is an empty index (${backend})`, async () => {
      const { root } = twoIndexes()
      mkdirSync(join(root, "sub", "deeper"))
      copyFileSync(join(root, ".git", "alt-index"), join(root, ".git", "rel-index"))
      const env = { HOME: home, ANVIL_GIT_BACKEND: backend, GIT_INDEX_FILE: ".git/rel-index" }
      const out = await callTool(root, "git_diff", { staged: true }, { env, cwd: join(root, "sub", "deeper") })
      expect((out.envelope.data as { files: Array<{ path: string }> }).files.map((f) => f.path)).toEqual(["b.txt"])
      // git reads a missing index as an empty one (every file staged as deleted) and writes it on the next add.
      const fresh = { ...env, GIT_INDEX_FILE: ".git/new-index" }
      const status = await callTool(root, "git_status", { short: true }, { env: fresh })
      expect((status.envelope.data as { content: string }).content).toBe(git(root, home, ["status", "--porcelain"], { GIT_INDEX_FILE: ".git/new-index" }).replace(/\n$/, ""))
      expect(existsSync(join(root, ".git", "new-index"))).toBe(false)
      await callTool(root, "git_add", { paths: "a.txt" }, { env: fresh })
      expect(git(root, home, ["ls-files"], { GIT_INDEX_FILE: ".git/new-index" }).trim()).toBe("a.txt")
    })
  }
})
