import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { MAX_SCORE, similarityScore, spanHashes } from "../../src/git/similarity.ts"
import { callTool } from "../support/harness.ts"
import { git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

setDefaultTimeout(60_000)
const home = gitHome()

const score = (a: string, b: string) => {
  const x = new TextEncoder().encode(a)
  const y = new TextEncoder().encode(b)
  return similarityScore({ size: x.length, hashes: spanHashes(x) }, { size: y.length, hashes: spanHashes(y) })
}

describe("rename similarity (git's diffcore-delta)", () => {
  test("identical content scores 100%, unrelated content 0, CRLF counts as LF", () => {
    expect(score(lines("x", 30), lines("x", 30))).toBe(MAX_SCORE)
    expect(score(lines("x", 30), lines("completely other", 30))).toBe(0)
    // Every chunk matches (the CR is skipped), but the score is over the larger size, as in git.
    const lf = lines("x", 30)
    const crlf = lf.replace(/\n/g, "\r\n")
    expect(score(lf, crlf)).toBe(Math.floor((lf.length * MAX_SCORE) / crlf.length))
  })

  test("around the 50% threshold, renames are detected exactly when git detects them", async () => {
    const root = gitRepo(home)
    const original = (k: number) => lines(`file ${k} line`, 40)
    for (const k of [4, 12, 18, 20, 22, 26, 36]) writeFileSync(join(root, `f${k}.txt`), original(k))
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", "base"])
    for (const k of [4, 12, 18, 20, 22, 26, 36]) {
      // Rewrite the first k of 40 lines, then move the file.
      const text = original(k)
        .split("\n")
        .map((l, i) => (i < k ? `rewritten ${i} of ${k}` : l))
        .join("\n")
      git(root, home, ["rm", "-q", `f${k}.txt`])
      writeFileSync(join(root, `moved${k}.txt`), text)
      git(root, home, ["add", `moved${k}.txt`])
    }
    const expected = git(root, home, ["status", "--porcelain"]).replace(/\n$/, "")
    // The fixture spans both sides of the threshold.
    expect(expected).toContain("R  f4.txt -> moved4.txt")
    expect(expected).toContain("A  moved36.txt")
    const out = await callTool(root, "git_status", { short: true }, { env: { HOME: home } })
    expect((out.envelope.data as { content: string }).content).toBe(expected)
    const staged = await callTool(root, "git_diff", { staged: true }, { env: { HOME: home } })
    expect((staged.envelope.data as { content: string }).content).toBe(git(root, home, ["diff", "--staged"]).replace(/\n$/, ""))
  })
})
