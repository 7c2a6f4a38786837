import { beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"
import { project } from "../support/harness.ts"

// Counts of one read in the singular, as the compiled binary answers.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

const text = async (root: string, name: string, params: Record<string, unknown>, env: Record<string, string> = {}) =>
  (await runBinary(["tool", name, JSON.stringify(params), "--text"], { cwd: root, env })).stdout

test("one line, one entry, one commit: no plural s", async () => {
  const root = project({ "d/x": "", "one.txt": "a\n" })
  expect(await text(root, "write", { path: "new.txt", content: "x\n" })).toContain("Created new.txt: 2 bytes, 1 line;")
  expect(await text(root, "list", { path: "d", offset: 5 })).toContain("which has 1 entry.")
  const patch = "--- a/one.txt\n+++ b/one.txt\n@@ -1 +1 @@\n-zzz\n+b\n"
  expect(await text(root, "patch", { patch })).toContain("none of its 1 context/removed line match")
  const home = gitHome()
  const repo = gitRepo(home, { "a.txt": "1\n" }, { commit: "one" })
  git(repo, home, ["commit", "-q", "--allow-empty", "-m", "two"])
  expect(await text(repo, "git_log", { limit: 1 }, { HOME: home })).toContain("Showing the newest 1 commit of 2 (TRUNCATED: 1 older not shown)")
})
