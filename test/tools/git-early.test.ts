import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { appendFileSync, mkdirSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { discardEarlyGit, guessedGitCommands, startEarlyGit, waitingEarlyGit } from "../../src/git/early-git.ts"
import { plannedGitCommands } from "../../src/git/early-plan.ts"
import { callTool } from "../support/harness.ts"
import { busyRepo, git, gitHome, gitRepo, lines } from "../support/git-repo.ts"

// Repositories are built with the git CLI; on a busy machine that takes longer than bun's 5 s default.
setDefaultTimeout(60_000)

const home = gitHome()
const env: Record<string, string> = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" }

/** The parts of an envelope that do not change from run to run. */
const answer = async (root: string, name: string, params: Record<string, unknown>, options: { env?: Record<string, string>; configOverrides?: Record<string, unknown> } = {}) => {
  const { envelope } = await callTool(root, name, params, { env: options.env ?? env, ...(options.configOverrides ? { configOverrides: options.configOverrides } : {}) })
  const { time_ms: _, ...stats } = envelope.stats
  return { ...envelope, stats }
}

/** Starts the early git of `anvil tool NAME JSON` in `root` and waits until it exited (its output is kept). */
const startedEarly = async (root: string, name: string, params: Record<string, unknown>, startEnv = env) => {
  const early = await startEarlyGit(["tool", name, JSON.stringify(params)], root, startEnv)
  await early.exited
  return early.started
}

afterEach(() => discardEarlyGit())

describe("git started before the runtime (anvil tool git_*)", () => {
  test("an adopted early git gives the answer the service's own git gives, on every read-only git tool", async () => {
    const root = busyRepo(home)
    for (let i = 0; i < 24; i++) git(root, home, ["commit", "-q", "--allow-empty", "-m", `empty ${i}`])
    const calls: ReadonlyArray<[string, Record<string, unknown>, number]> = [
      ["git_status", {}, 1],
      ["git_status", { short: true }, 1],
      ["git_diff", {}, 1],
      ["git_diff", { staged: true }, 1],
      // The log and its count (the history is longer than the limit).
      ["git_log", {}, 2],
      ["git_log", { limit: 3, oneline: true }, 2],
    ]
    for (const [name, params, commands] of calls) {
      const own = await answer(root, name, params)
      expect(await startedEarly(root, name, params)).toBe(commands)
      expect({ name, params, ...(await answer(root, name, params)) }).toEqual({ name, params, ...own })
      expect(waitingEarlyGit()).toBe(0)
    }
  })

  test("the adopted output is the early one (started before a change, it does not show it); a mismatch runs git anew", async () => {
    const root = gitRepo(home, { "a.txt": lines("a") }, { commit: "first" })
    appendFileSync(join(root, "a.txt"), "more\n")
    const before = await answer(root, "git_status", { short: true })
    expect(await startedEarly(root, "git_status", { short: true })).toBe(1)
    writeFileSync(join(root, "late.txt"), "late\n")
    // Taken over: git had already answered, before late.txt existed.
    expect(await answer(root, "git_status", { short: true })).toEqual(before)
    expect(waitingEarlyGit()).toBe(0)

    // Started with another environment than the service's: not the same command, killed, and git runs again.
    expect(await startedEarly(root, "git_status", { short: true }, { ...env, EXTRA: "1" })).toBe(1)
    writeFileSync(join(root, "later.txt"), "later\n")
    const fresh = await answer(root, "git_status", { short: true })
    expect(waitingEarlyGit()).toBe(0)
    expect((fresh.data as { content: string }).content).toBe(git(root, home, ["status", "--porcelain"]).replace(/\n$/, ""))
    expect((fresh.data as { content: string }).content).toContain("?? later.txt")

    // status.showUntrackedFiles set after the early start changes the service's command: it runs its own.
    expect(await startedEarly(root, "git_status", {})).toBe(1)
    git(root, home, ["config", "status.showUntrackedFiles", "no"])
    const quiet = await answer(root, "git_status", {})
    expect(waitingEarlyGit()).toBe(0)
    expect((quiet.data as { content: string }).content).toBe(git(root, home, ["status"]).replace(/\n+$/, ""))
    expect((quiet.data as { content: string }).content).not.toContain("later.txt")
  })

  test("a refused call never uses the early output: the same refusal as without it, and the early git is left to be killed", async () => {
    const root = gitRepo(home, { "a.txt": lines("a") }, { commit: "first" })
    appendFileSync(join(root, "a.txt"), "more\n")
    const deny = { permission: { git_diff: "deny" } }
    const refused = await answer(root, "git_diff", {}, { configOverrides: deny })
    expect(refused.error?.code).toBe("PERMISSION_DENIED")
    expect(await startedEarly(root, "git_diff", {})).toBe(1)
    expect(await answer(root, "git_diff", {}, { configOverrides: deny })).toEqual(refused)
    expect(waitingEarlyGit()).toBe(1)
    discardEarlyGit()
    expect(waitingEarlyGit()).toBe(0)
  })

  test("only the plain read-only forms start early; anything else runs as before", () => {
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
    mkdirSync(join(root, "sub"))
    const planned = (argv: ReadonlyArray<string>, cwd = root, e: Record<string, string | undefined> = env) =>
      plannedGitCommands(argv, cwd, e).map((c) => c.args.slice(c.args.indexOf("log.showSignature=false") + 1).join(" "))
    expect(planned(["tool", "git_diff"])).toEqual(["diff --no-renames --raw -z -p --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/ --"])
    expect(planned(["tool", "git_status", '{"short":true}'], join(root, "sub"))).toHaveLength(1)
    expect(plannedGitCommands(["tool", "git_status"], join(root, "sub"), env)[0]!.cwd).toBe(realpathSync(root))
    expect(planned(["tool", "git_log", '{"limit":5}'])).toEqual([expect.stringContaining("log -z --max-count=6"), "rev-list --count HEAD"])
    for (const argv of [
      ["tool", "git_diff", '{"path":"a.txt"}'], // a path is resolved by the workspace first
      ["tool", "git_diff", '{"cached":true}'], // aliases are the pipeline's
      ["tool", "git_diff", "{}", "--text"],
      ["tool", "git_log", '{"limit":0}'],
      ["tool", "git_log", '{"limit":"5"}'],
      ["tool", "git_add", '{"path":"a.txt"}'], // writes never start early
      ["tool", "git_commit", '{"message":"m"}'],
      ["tool", "read", '{"path":"a.txt"}'],
      ["--root", root, "tool", "git_diff"],
      ["tool", "git_status", "not json"],
      ["tool", "git_status", "[]"],
    ]) {
      expect({ argv, planned: planned(argv) }).toEqual({ argv, planned: [] })
    }
    expect(planned(["tool", "git_status"], root, { ...env, ANVIL_GIT_BACKEND: "isomorphic" })).toEqual([])
    expect(planned(["tool", "git_status"], root, { ...env, ANVIL_ROOT: root })).toEqual([])
    expect(planned(["tool", "git_status"], home)).toEqual([])
    // A bare repository has no work tree: only the log starts early there, in the repository's folder.
    git(root, home, ["clone", "-q", "--bare", root, join(root, "sub", "r.git")])
    expect(planned(["tool", "git_status"], join(root, "sub", "r.git"))).toEqual([])
    expect(planned(["tool", "git_log"], join(root, "sub", "r.git"))).toHaveLength(2)
    expect(plannedGitCommands(["tool", "git_log"], join(root, "sub", "r.git"), env)[0]!.cwd).toBe(realpathSync(join(root, "sub", "r.git")))
  })

  test("the guess made without reading a file (the unstaged diff and the log, from a project's top) is the full plan", () => {
    const root = realpathSync(gitRepo(home, { "a.txt": "a\n" }, { commit: "first" }))
    mkdirSync(join(root, "sub"))
    // Settings that change no guessed command: renames matter to the staged diff only.
    git(root, home, ["config", "diff.renames", "copies"])
    for (const argv of [["tool", "git_diff"], ["tool", "git_diff", '{"staged":false}'], ["tool", "git_log"], ["tool", "git_log", '{"limit":3,"oneline":true}']]) {
      expect({ argv, guessed: guessedGitCommands(argv, root, env) }).toEqual({ argv, guessed: plannedGitCommands(argv, root, env) })
    }
    // What depends on the git config, or on where the repository is, is planned in full.
    for (const [argv, cwd] of [[["tool", "git_status"], root], [["tool", "git_diff", '{"staged":true}'], root], [["tool", "git_diff"], join(root, "sub")], [["tool", "git_diff", '{"path":"a.txt"}'], root]] as const) {
      expect({ argv, cwd, guessed: guessedGitCommands(argv, cwd, env) }).toEqual({ argv, cwd, guessed: undefined })
    }
    expect(guessedGitCommands(["tool", "git_diff"], root, { ...env, GIT_DIR: ".git" })).toBeUndefined()
    expect(guessedGitCommands(["tool", "git_diff"], root, { ...env, PATH: "/nonexistent" })).toBeUndefined()
  })

  test("in a bare repository the adopted log answers as the service's own git", async () => {
    const root = gitRepo(home, { "a.txt": "a\n" }, { commit: "first" })
    for (let i = 0; i < 3; i++) git(root, home, ["commit", "-q", "--allow-empty", "-m", `empty ${i}`])
    git(root, home, ["clone", "-q", "--bare", root, `${root}.git`])
    const bare = realpathSync(`${root}.git`)
    const own = await callTool(bare, "git_log", { limit: 2 }, { env })
    expect(own.envelope.status).toBe("partial")
    expect(await startedEarly(bare, "git_log", { limit: 2 })).toBe(2)
    // A commit pushed after the early start does not show: the answer is the early git's.
    git(root, home, ["commit", "-q", "--allow-empty", "-m", "later"])
    git(root, home, ["push", "-q", bare, "main"])
    expect(git(bare, home, ["log", "-1", "--format=%s"]).trim()).toBe("later")
    const adopted = await callTool(bare, "git_log", { limit: 2 }, { env })
    expect(adopted.envelope.text).toBe(own.envelope.text)
    expect(waitingEarlyGit()).toBe(0)
  })
})
