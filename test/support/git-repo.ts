import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { project, tempDir, type TreeSpec } from "./harness.ts"

/** A HOME for git with an identity in ~/.gitconfig, shared by the git CLI and the tools in one test file. */
export const gitHome = (identity: { name: string; email: string } | null = { name: "Test Author", email: "author@example.test" }) => {
  const home = tempDir("anvil-home-")
  if (identity) writeFileSync(join(home, ".gitconfig"), `[user]\n\tname = ${identity.name}\n\temail = ${identity.email}\n`)
  return home
}

/** The environment the git CLI runs with in tests: this HOME only, no system config, fixed dates when given. */
export const gitEnv = (home: string, extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  LC_ALL: "C",
  TZ: "UTC",
  ...extra,
})

/** Runs git in `cwd` and returns stdout (throws on a non-zero exit). */
export const git = (cwd: string, home: string, args: ReadonlyArray<string>, extra: Record<string, string> = {}): string =>
  execFileSync("git", [...args], { cwd, env: gitEnv(home, extra), encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] })

/** A new repository (branch main) holding `tree`, optionally committed. */
export const gitRepo = (home: string, tree: TreeSpec = {}, options: { commit?: string } = {}): string => {
  const root = project(tree, { marker: false })
  git(root, home, ["init", "-q", "-b", "main"])
  if (options.commit !== undefined) {
    git(root, home, ["add", "-A"])
    git(root, home, ["commit", "-q", "-m", options.commit])
  }
  return root
}

/** `n` lines "<prefix> <i>" — text files that rename detection and diffs can work on. */
export const lines = (prefix: string, n = 20): string => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join("")

/**
 * A repository with one of every kind of change git status and git diff
 * report: staged and unstaged edits of one file, staged and unstaged
 * deletions, an exact and an inexact staged rename, a new file edited after
 * staging, a mode change, a symlink replaced by a file, untracked files and
 * folders (collapsed as git does), ignored files, and names git quotes.
 */
export const busyRepo = (home: string): string => {
  const { chmodSync, mkdirSync, rmSync, unlinkSync } = require("node:fs") as typeof import("node:fs")
  const root = gitRepo(
    home,
    {
      "a.txt": lines("a"),
      "b.txt": lines("b"),
      "c.txt": lines("c"),
      "d.txt": lines("d"),
      "r.txt": lines("r", 30),
      "e.txt": lines("e"),
      link: { link: "a.txt" },
      "sub/keep.txt": lines("keep"),
      "sub/mod.txt": lines("mod"),
      "sp ace.txt": "x\n",
      "ünï.txt": "y\n",
      ".gitignore": "*.log\nbuild/\n",
    },
    { commit: "initial" },
  )
  const w = (rel: string, text: string) => {
    mkdirSync(join(root, rel, ".."), { recursive: true })
    writeFileSync(join(root, rel), text)
  }
  w("a.txt", `${lines("a")}staged line\n`)
  git(root, home, ["add", "a.txt"])
  w("a.txt", `${lines("a")}staged line\nunstaged line\n`)
  git(root, home, ["rm", "-q", "b.txt"])
  unlinkSync(join(root, "c.txt"))
  git(root, home, ["mv", "d.txt", "d-renamed.txt"])
  git(root, home, ["rm", "-q", "r.txt"])
  w("moved/r2.txt", lines("r", 30).replace("r 5\n", "r five\n").replace("r 20\n", "r twenty\n"))
  git(root, home, ["add", "moved/r2.txt"])
  w("new.txt", "new\n")
  git(root, home, ["add", "new.txt"])
  w("new.txt", "new\nedited after staging\n")
  chmodSync(join(root, "e.txt"), 0o755)
  rmSync(join(root, "link"))
  w("link", "now a file\n")
  w("sub/mod.txt", lines("mod").replace("mod 10\n", "mod ten\n"))
  w("sp ace.txt", "x\nmore\n")
  w("u.txt", "untracked\n")
  w("newdir/x/y.txt", "deep untracked\n")
  w("sub/untracked-dir/z.txt", "z\n")
  w("ñew file.txt", "quoted\n")
  w("debug.log", "ignored\n")
  w("build/out.txt", "ignored\n")
  return root
}
