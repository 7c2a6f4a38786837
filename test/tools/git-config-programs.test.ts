import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { appendFileSync, existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { tempDir } from "../support/harness.ts"
import { git, gitHome, gitRepo } from "../support/git-repo.ts"

// Repositories are built with the git CLI and the binary is built once: longer than bun's 5 s default.
setDefaultTimeout(120_000)

/**
 * The read-only git tools (allowed without a question) never run a program the repository's own git config
 * names: a filter driver's clean or process command on a file whose stat no longer matches the index, or the
 * upload-pack command of a partial clone's lazy fetch. Through the compiled binary, whose `anvil tool git_*`
 * starts its git before the runtime loads.
 */
describe("git reads run no program the repository's config names", () => {
  const home = gitHome()
  let canaries = ""
  const mark = (name: string) => `touch '${join(canaries, name)}'`
  const reads: ReadonlyArray<[string, string]> = [
    ["git_status", "{}"],
    ["git_status", '{"short": true}'],
    ["git_diff", "{}"],
    ["git_diff", '{"staged": true}'],
    ["git_diff", '{"path": "a.txt"}'],
    ["git_log", "{}"],
  ]
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1" }

  test("filters of .git/config and of a file it includes (any driver name) do not run; your own ~/.gitconfig's still do", async () => {
    canaries = tempDir("anvil-canary-")
    const root = gitRepo(home, { "a.txt": "a\n", "b.md": "b\n", "c.dat": "c\n" }, { commit: "first" })
    writeFileSync(join(root, ".gitattributes"), '*.txt filter=evil\n*.md filter=Od=d"x\n*.dat filter=mine\n')
    git(root, home, ["add", ".gitattributes"])
    git(root, home, ["commit", "-q", "-m", "attributes"])
    appendFileSync(join(root, ".git/config"), `[filter "evil"]\n\tclean = ${mark("clean")}; cat\n\trequired = true\n[include]\n\tpath = more\n`)
    writeFileSync(join(root, ".git/more"), `[filter "Od=d\\"x"]\n\tprocess = ${mark("process")}\n\trequired\n`)
    // The user's own filter (git-lfs is installed this way) is theirs to run.
    writeFileSync(join(home, ".gitconfig-filters"), `[filter "mine"]\n\tclean = ${mark("mine")}; cat\n`)
    git(root, home, ["config", "--global", "include.path", join(home, ".gitconfig-filters")])
    for (const [tool, params] of reads) {
      // A stat that differs from the index makes git compare the content, through the file's clean filter.
      for (const f of ["a.txt", "b.md", "c.dat"]) utimesSync(join(root, f), new Date(), new Date(Date.now() - 60_000))
      const result = await runBinary(["tool", tool, params], { cwd: root, env })
      const envelope = JSON.parse(result.stdout)
      expect({ tool, params, status: envelope.status, canaries: readdirSync(canaries).filter((n) => n !== "mine") }).toEqual({ tool, params, status: "success", canaries: [] })
      // The repository's filters were plain `cat`s: without them the files still read as unchanged.
      if (tool === "git_status") expect(envelope.data.entries.map((e: { path: string }) => e.path).filter((p: string) => p !== "c.dat")).toEqual([])
    }
    expect(existsSync(join(canaries, "mine"))).toBe(true)
  })

  test("a partial clone's missing object is not fetched, so its remote's upload-pack command does not run", async () => {
    canaries = tempDir("anvil-canary-")
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
    const blob = git(root, home, ["rev-parse", "HEAD:a.txt"]).trim()
    rmSync(join(root, ".git/objects", blob.slice(0, 2), blob.slice(2)))
    for (const [key, value] of [
      ["core.repositoryformatversion", "1"],
      ["extensions.partialClone", "origin"],
      ["remote.origin.url", join(root, "elsewhere")],
      ["remote.origin.promisor", "true"],
      ["protocol.file.allow", "always"],
      ["remote.origin.uploadpack", `${mark("upload-pack")}; exit 1; `],
    ]) git(root, home, ["config", key!, value!])
    appendFileSync(join(root, "a.txt"), "more\n")
    const result = await runBinary(["tool", "git_diff", "{}"], { cwd: root, env })
    const envelope = JSON.parse(result.stdout)
    expect(envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(envelope.error?.message).toContain("transport 'file' not allowed")
    expect(readdirSync(canaries)).toEqual([])
  })
})
