import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { appendFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { callTool, tempDir } from "../support/harness.ts"
import { expectSameAnswers, STATUS_AND_DIFF } from "../support/git-parity.ts"
import { git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(120_000)

const home = gitHome()
const LOGS: ReadonlyArray<[string, Record<string, unknown>, ReadonlyArray<string>]> = [
  ["git_log", {}, ["log"]],
  ["git_log", { oneline: true }, ["log", "--oneline"]],
]

/** Stages `paths` and commits through the built-in backend (no git executable). */
const commitWithoutGit = async (root: string, paths: ReadonlyArray<string>, message: string) => {
  const env = { HOME: home, ANVIL_GIT_BACKEND: "isomorphic" }
  const added = await callTool(root, "git_add", { paths }, { env })
  expect(added.envelope.status).toBe("success")
  const committed = await callTool(root, "git_commit", { message }, { env })
  expect(committed.envelope.status).toBe("success")
}

describe("the git tools without git (isomorphic-git) answer as git does", () => {
  test("clones that borrow objects (clone --shared, --reference, an alternate of an alternate): status, diffs, log, add and commit", async () => {
    const origin = gitRepo(home, { "a.txt": lines("a"), "b.txt": lines("b") }, { commit: "first" })
    git(origin, home, ["gc", "-q"])
    appendFileSync(join(origin, "a.txt"), "second\n")
    git(origin, home, ["commit", "-q", "-am", "second (loose)"])
    const dir = tempDir("anvil-alt-")
    const shared = join(dir, "shared")
    git(dir, home, ["clone", "-q", "--shared", origin, shared])
    const chained = join(dir, "chained")
    git(dir, home, ["clone", "-q", "--shared", shared, chained])
    const referenced = join(dir, "referenced")
    git(dir, home, ["clone", "-q", "--reference", origin, `file://${origin}`, referenced])
    for (const root of [shared, chained, referenced]) {
      expect(git(root, home, ["count-objects"])).toStartWith("0 objects")
      appendFileSync(join(root, "a.txt"), "local edit\n")
      writeFileSync(join(root, "b.txt"), lines("b").replace("b 3\n", "b three\n"))
      git(root, home, ["add", "b.txt"])
      writeFileSync(join(root, "new.txt"), "new\n")
      await expectSameAnswers(home, root, [...STATUS_AND_DIFF, ...LOGS])
      await commitWithoutGit(root, ["a.txt", "new.txt"], "made without git")
      expect(git(root, home, ["fsck", "--no-progress"])).toBe("")
      expect(git(root, home, ["log", "--format=%s", "-2"])).toBe("made without git\nsecond (loose)\n")
      expect(git(root, home, ["status", "--porcelain"])).toBe("")
      await expectSameAnswers(home, root, LOGS)
    }
    rmSync(dir, { recursive: true, force: true })
    rmSync(origin, { recursive: true, force: true })
  })
})
