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

const collector = () => {
  const chunks: Array<Uint8Array> = []
  return {
    sink: { write: (c: Uint8Array) => void chunks.push(c) },
    bytes: () => Buffer.concat(chunks),
  }
}

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
  const run: GitCli["run"] = (cwd, args, options = {}) =>
    Effect.gen(function* () {
      const out = collector()
      const err = collector()
      const outcome = yield* runner
        .run({
          file,
          args: [...SAFE_ARGS, ...args],
          cwd,
          env: { ...env, ...options.extraEnv },
          timeoutMs: TIMEOUT_MS,
          killGraceMs: 1000,
          drainMs: 1000,
          stdout: out.sink,
          stderr: err.sink,
        })
        .pipe(Effect.mapError((e) => gitError("failed", `git could not be started: ${e.message}`)))
      const result = { stdout: out.bytes(), stderr: err.bytes().toString("utf8"), exitCode: outcome.exitCode }
      if (outcome.timedOut) return yield* Effect.fail(gitError("timeout", `git ${args[0]} did not finish within ${TIMEOUT_MS / 1000} s.`))
      if (result.exitCode !== 0 && options.allowFailure !== true) {
        const message = result.stderr.trim().split("\n").slice(-5).join("\n") || `exit code ${result.exitCode}`
        return yield* Effect.fail(gitError("failed", `git ${args[0]} failed: ${message}`))
      }
      return result
    })
  return { file, run }
})
