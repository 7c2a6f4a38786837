import { Effect } from "effect"
import { Config } from "../config/config.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { adoptEarlyGit, type AdoptedGit, type EarlyOutput } from "./early-git.ts"
import { gitCommand, gitSetup } from "./git-command.ts"
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

const TIMEOUT_MS = 120_000

/**
 * git subcommands that start nothing which outlives them (no hooks, no
 * automatic gc, fsmonitor off): their process tree is forgotten as soon as
 * they exit, rather than kept for the scan of /proc when anvil exits.
 */
const SHORT_LIVED = new Set(["status", "diff", "log", "rev-parse", "rev-list"])

/** The bytes of `chunks` as one array (no copy for a single chunk, the usual case for small outputs). */
const joined = (chunks: ReadonlyArray<Uint8Array>): Uint8Array =>
  chunks.length === 1 ? chunks[0]! : chunks.length === 0 ? new Uint8Array(0) : Buffer.concat(chunks)

/** How a git process ended: its output and exit code, or that it ran out of time. */
type Ended = EarlyOutput & { readonly timedOut: boolean }

/**
 * The last lines of git's complaint, and its first `fatal:` or `error:` line when they leave it out: git says what
 * failed and on which file first, then advice (an index.lock's five lines of it).
 */
const stderrExcerpt = (stderr: string): string => {
  const lines = stderr.trim().split("\n")
  const last = lines.slice(-5)
  const first = lines.slice(0, -5).find((l) => /^(fatal|error): /.test(l))
  return (first === undefined ? last : [first, ...last]).join("\n")
}

/** What a run printed and how it ended, as the callers get it: a timeout, or a failing exit unless allowed, is an error. */
const outcome = (
  args: ReadonlyArray<string>,
  allowFailure: boolean | undefined,
  ended: Ended,
): Effect.Effect<GitOutput, GitError> => {
  const result = { stdout: ended.stdout, stderr: ended.stderr.length === 0 ? "" : Buffer.from(ended.stderr).toString("utf8"), exitCode: ended.exitCode }
  if (ended.timedOut) return Effect.fail(gitError("timeout", `git ${args[0]} did not finish within ${TIMEOUT_MS / 1000} s.`))
  if (result.exitCode !== 0 && allowFailure !== true) {
    const message = stderrExcerpt(result.stderr) || `exit code ${result.exitCode}`
    return Effect.fail(gitError("failed", `git ${args[0]} failed: ${message}`))
  }
  return Effect.succeed(result)
}

/** The output of a git started early (early-git.ts), ended as the runner ends one: at the time limit, or when the call is interrupted. */
const awaitAdopted = (early: AdoptedGit) =>
  Effect.callback<Ended>((resume) => {
    const timer = setTimeout(() => {
      early.kill()
      resume(Effect.succeed({ stdout: new Uint8Array(0), stderr: new Uint8Array(0), exitCode: null, timedOut: true }))
    }, TIMEOUT_MS)
    void early.output.then((ended) => {
      clearTimeout(timer)
      resume(Effect.succeed({ ...ended, timedOut: false }))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      early.kill()
    })
  })

/**
 * The git command line when one is installed and wanted: `git.backend` (or
 * ANVIL_GIT_BACKEND) "cli" or "auto" (the default) uses it, "isomorphic"
 * keeps the built-in implementation. Undefined means: use isomorphic-git.
 */
export const gitCli: Effect.Effect<GitCli | undefined, never, Config | ProcessRunner> = Effect.gen(function* () {
  const config = yield* Config
  const runner = yield* ProcessRunner
  const setup = gitSetup(config.env, config.get("git.backend", "auto"))
  if (setup === undefined) return undefined
  const run: GitCli["run"] = (cwd, args, options = {}) => Effect.suspend(() => {
    const command = gitCommand(setup, cwd, args, options.extraEnv)
    // The same command started before the runtime loaded (`anvil tool git_*`): its output is this run's.
    const early = adoptEarlyGit(command)
    if (early !== undefined) return Effect.flatMap(awaitAdopted(early), (ended) => outcome(args, options.allowFailure, ended))
    const out: Array<Uint8Array> = []
    const err: Array<Uint8Array> = []
    return runner
      .run({
        ...command,
        timeoutMs: TIMEOUT_MS,
        killGraceMs: 1000,
        drainMs: 1000,
        stdout: { write: (c) => void out.push(c) },
        stderr: { write: (c) => void err.push(c) },
        leavesNothing: SHORT_LIVED.has(args[0] ?? ""),
      })
      .pipe(
        Effect.mapError((e) => gitError("failed", `git could not be started: ${e.message}`)),
        Effect.flatMap((ended) => outcome(args, options.allowFailure, { stdout: joined(out), stderr: joined(err), exitCode: ended.exitCode, timedOut: ended.timedOut })),
      )
  })
  return { file: setup.file, run }
})
