import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { tempDir } from "../support/harness.ts"
import { git, gitEnv, gitHome, gitRepo } from "../support/git-repo.ts"

// Repositories are built with the git CLI and the binary is built once: longer than bun's 5 s default.
setDefaultTimeout(120_000)

/**
 * `git status` and `git diff` enter every populated submodule, and every repository committed as a gitlink
 * without .gitmodules, to tell whether it is dirty; the git there obeys that repository's own config. The read
 * tools must not let such a config run its filter driver either. Through the compiled binary.
 */
describe("git reads run no program a submodule's or embedded repository's config names", () => {
  const home = gitHome()
  const env = { HOME: home, GIT_CONFIG_NOSYSTEM: "1" }

  /** A repository holding `a.txt` under a filter named `driver`, with that filter defined in its own config. */
  const filtered = (dir: string, driver: string) => {
    mkdirSync(dir, { recursive: true })
    git(dir, home, ["init", "-q"])
    writeFileSync(join(dir, "a.txt"), "a\n")
    writeFileSync(join(dir, ".gitattributes"), `a.txt filter=${driver}\n`)
    git(dir, home, ["add", "-A"])
    git(dir, home, ["commit", "-q", "-m", "sub"])
  }
  const arm = (configFile: string, driver: string, marker: string) =>
    appendFileSync(configFile, `[filter "${driver}"]\n\tclean = touch '${marker}'; cat\n`)

  test("an absorbed submodule (odd name), an embedded repository without .gitmodules, and one nested in it", async () => {
    const canaries = tempDir("anvil-canary-")
    const mark = (n: string) => join(canaries, n)
    const root = gitRepo(home, { "top.txt": "t\n" }, { commit: "first" })
    const source = tempDir("anvil-sub-src-")
    filtered(source, "evil")
    const odd = "sub wïth 'quote'"
    git(root, home, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", source, odd])
    // An embedded repository, committed as a gitlink only, with another inside it.
    filtered(join(root, "emb"), "Od=d.x")
    filtered(join(root, "emb/inner"), "deep")
    git(join(root, "emb"), home, ["add", "inner"])
    git(join(root, "emb"), home, ["commit", "-q", "-m", "inner"])
    git(root, home, ["add", "emb"])
    git(root, home, ["commit", "-q", "-m", "subs"])
    expect(existsSync(join(root, ".gitmodules"))).toBe(true)
    arm(join(root, ".git/modules", odd, "config"), "evil", mark("absorbed"))
    arm(join(root, "emb/.git/config"), "Od=d.x", mark("embedded"))
    arm(join(root, "emb/inner/.git/config"), "deep", mark("inner"))
    const touchAll = () => {
      for (const f of [`${odd}/a.txt`, "emb/a.txt", "emb/inner/a.txt"]) utimesSync(join(root, f), new Date(), new Date(Date.now() - 60_000))
    }

    // git itself runs all three: the setup is a real attack.
    touchAll()
    Bun.spawnSync(["git", "status", "--porcelain=v2", "--ignore-submodules=none"], { cwd: root, env: gitEnv(home) })
    expect(readdirSync(canaries).sort()).toEqual(["absorbed", "embedded", "inner"])
    for (const n of readdirSync(canaries)) rmSync(mark(n))

    writeFileSync(join(root, "emb/inner/new.txt"), "untracked\n")
    for (const [tool, params] of [["git_status", "{}"], ["git_status", '{"short": true}'], ["git_diff", "{}"]] as const) {
      touchAll()
      const result = await runBinary(["tool", tool, params], { cwd: root, env })
      const envelope = JSON.parse(result.stdout)
      expect({ tool, params, status: envelope.status, canaries: readdirSync(canaries) }).toEqual({ tool, params, status: "success", canaries: [] })
      // The answer is git's own: the embedded repository holds one with an untracked file.
      if (tool === "git_status" && params === "{}") expect(envelope.data.entries.map((e: { path: string }) => e.path)).toEqual(["emb"])
    }
  })
})
