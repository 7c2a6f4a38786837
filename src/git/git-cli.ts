import { Effect } from "effect"
import { accessSync, constants } from "node:fs"
import { Config } from "../config/config.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { gitError, type GitError } from "./git-error.ts"

/** What one git command printed and how it exited. */
export interface GitOutput {
  readonly stdout: Uint8Array
  readonly stderr: string
  readonly exitCode: number | null
}

/** The git executable to run, and the environment it runs with. */
export interface GitCli {
  readonly file: string
  /** Runs `git <args>` in `cwd`; a non-zero exit fails with git's own message unless `allowFailure`. */
  readonly run: (
    cwd: string,
    args: ReadonlyArray<string>,
    options?: { readonly allowFailure?: boolean; readonly extraEnv?: Readonly<Record<string, string>> },
  ) => Effect.Effect<GitOutput, GitError>
}

const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
const TIMEOUT_MS = 120_000

/**
 * Settings given on every call so that reading a repository never runs code a
 * configuration names (an fsmonitor hook, an external diff or textconv
 * driver) and never waits for a pager or a password prompt.
 */
const SAFE_ARGS = [
  "--no-pager",
  "-c", "core.fsmonitor=false",
  "-c", "core.quotepath=on",
  "-c", "color.ui=false",
  "-c", "diff.external=",
  "-c", "log.showSignature=false",
]

/**
 * The child's environment: the user's own, minus every GIT_* variable that
 * would point git elsewhere (GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY…),
 * keeping only the identity ones; messages in English (the tools parse and
 * show them), no optional locks (a read never blocks a user's own git).
 */
const gitEnvironment = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue
    if (k.startsWith("GIT_") && !/^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/.test(k) && k !== "GIT_CONFIG_NOSYSTEM") continue
    out[k] = v
  }
  out.PATH = env.PATH ?? DEFAULT_PATH
  out.LC_ALL = "C"
  out.GIT_OPTIONAL_LOCKS = "0"
  out.GIT_TERMINAL_PROMPT = "0"
  out.GIT_PAGER = "cat"
  return out
}

/** The first executable `git` on PATH, or undefined. */
export const findGit = (path: string | undefined): string | undefined => {
  for (const dir of (path ?? DEFAULT_PATH).split(":")) {
    if (dir === "") continue
    const file = `${dir}/git`
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return undefined
}

/**
 * git subcommands that start nothing which outlives them (no hooks, no
 * automatic gc, fsmonitor off): their process tree is forgotten as soon as
 * they exit, rather than kept for the scan of /proc when anvil exits.
 */
const SHORT_LIVED = new Set(["status", "diff", "log", "rev-parse", "rev-list"])

/** The bytes of `chunks` as one array (no copy for a single chunk, the usual case for small outputs). */
const joined = (chunks: ReadonlyArray<Uint8Array>): Uint8Array =>
  chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? new Uint8Array(0) : Buffer.concat(chunks)

/**
 * The git command line when one is installed and wanted: `git.backend` (or
 * ANVIL_GIT_BACKEND) "cli" or "auto" (the default) uses it, "isomorphic"
 * keeps the built-in implementation. Undefined means: use isomorphic-git.
 */
export const gitCli: Effect.Effect<GitCli | undefined, never, Config | ProcessRunner> = Effect.gen(function* () {
  const config = yield* Config
  const runner = yield* ProcessRunner
  const wanted = config.env.ANVIL_GIT_BACKEND ?? config.get("git.backend", "auto")
  if (wanted === "isomorphic") return undefined
  const file = findGit(config.env.PATH)
  if (file === undefined) return undefined
  const env = gitEnvironment(config.env)
  const run: GitCli["run"] = (cwd, args, options = {}) => Effect.suspend(() => {
    const out: Array<Uint8Array> = []
    const err: Array<Uint8Array> = []
    return runner
      .run({
        file,
        args: [...SAFE_ARGS, ...args],
        cwd,
        env: options.extraEnv ? { ...env, ...options.extraEnv } : env,
        timeoutMs: TIMEOUT_MS,
        killGraceMs: 1000,
        drainMs: 1000,
        stdout: { write: (c) => void out.push(c) },
        stderr: { write: (c) => void err.push(c) },
        leavesNothing: SHORT_LIVED.has(args[0] ?? ""),
      })
      .pipe(
        Effect.mapError((e) => gitError("failed", `git could not be started: ${e.message}`)),
        Effect.flatMap((outcome) => {
          const result = { stdout: joined(out), stderr: err.length === 0 ? "" : Buffer.concat(err).toString("utf8"), exitCode: outcome.exitCode }
          if (outcome.timedOut) return Effect.fail(gitError("timeout", `git ${args[0]} did not finish within ${TIMEOUT_MS / 1000} s.`))
          if (result.exitCode !== 0 && options.allowFailure !== true) {
            const message = result.stderr.trim().split("\n").slice(-5).join("\n") || `exit code ${result.exitCode}`
            return Effect.fail(gitError("failed", `git ${args[0]} failed: ${message}`))
          }
          return Effect.succeed(result)
        }),
      )
  })
  return { file, run }
})
