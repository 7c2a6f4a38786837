import { describe, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { enteredRepositories } from "../../src/git/entered-repositories.ts"
import { tempDir } from "../support/harness.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"

/** The repositories a work-tree read enters are read from the index in every form git writes it. */
describe("enteredRepositories", () => {
  const home = gitHome()
  const withLinks = () => {
    const root = gitRepo(home, { "a.txt": "a\n", "deep/b.txt": "b\n" }, { commit: "first" })
    for (const sub of ["deep/one", "two \u00e9\nline"]) {
      mkdirSync(join(root, sub), { recursive: true })
      git(join(root, sub), home, ["init", "-q"])
      writeFileSync(join(root, sub, "x"), "x\n")
      git(join(root, sub), home, ["add", "x"])
      git(join(root, sub), home, ["commit", "-q", "-m", "x"])
      git(root, home, ["add", sub])
    }
    // A gitlink whose folder holds no repository is not entered.
    git(root, home, ["update-index", "--add", "--cacheinfo", `160000,${git(root, home, ["rev-parse", "HEAD"]).trim()},empty`])
    return root
  }
  const entered = (root: string) => enteredRepositories(root, join(root, ".git/index"), join(root, ".git"))?.map((w) => w.slice(root.length + 1)).sort()

  test("none in a repository without gitlinks", () => {
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
    expect(entered(root)).toEqual([])
  })

  for (const form of [["--index-version", "2"], ["--index-version", "3"], ["--index-version", "4"], ["--split-index"]]) {
    test(`each populated gitlink, odd names too, in an index written with ${form.join(" ")}`, () => {
      const root = withLinks()
      git(root, home, ["update-index", ...form])
      expect(entered(root)).toEqual(["deep/one", "two \u00e9\nline"])
    })
  }

  test("a SHA-256 repository's index (32-byte names) is read with its own layout", () => {
    const root = tempDir("anvil-sha256-")
    git(root, home, ["init", "-q", "--object-format=sha256"])
    writeFileSync(join(root, "a.txt"), "a\n")
    mkdirSync(join(root, "inner"))
    git(join(root, "inner"), home, ["init", "-q", "--object-format=sha256"])
    writeFileSync(join(root, "inner/x"), "x\n")
    git(join(root, "inner"), home, ["add", "x"])
    git(join(root, "inner"), home, ["commit", "-q", "-m", "x"])
    git(root, home, ["add", "a.txt", "inner"])
    expect(entered(root)).toEqual(["inner"])
  })

  test("an index it cannot read is not taken for one without gitlinks", () => {
    const root = withLinks()
    writeFileSync(join(root, ".git/index"), Buffer.concat([Buffer.from("DIRC\0\0\0\x09\0\0\0\x05garbage"), Buffer.from([0, 0, 0xe0, 0])]))
    expect(entered(root)).toBeUndefined()
  })
})
