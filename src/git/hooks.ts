import { Effect } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { ProcessRunner } from "../process/process-runner.ts"
import { gitError, type GitError } from "./git-error.ts"

/** Hook output kept for the error text: its last 4 MiB (the framework cuts and spills a long one like any text). */
const MAX_OUTPUT = 4 * 1024 * 1024

/**
 * Runs a repository hook (pre-commit, commit-msg) the way git does: only when
 * the file exists and is executable, in the work tree, with `args`. A non-zero
 * exit stops the commit with the hook's output. isomorphic-git never runs
 * hooks, so git_commit calls this itself: a commit is never made with hooks
 * skipped (the effect of --no-verify). The hook runs in a process group of its
 * own and is stopped, with everything it started, after `timeoutMs`: a hook
 * that waits for ever (for a terminal, a lock) must not hold the call.
 */
export const runHook = (options: {
  readonly hooksDir: string
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly timeoutMs: number
}): Effect.Effect<boolean, GitError, FileSystem | Path | ProcessRunner> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const runner = yield* ProcessRunner
    const file = path.join(options.hooksDir, options.name)
    const info = yield* fs.stat(file).pipe(Effect.option)
    if (info._tag === "None" || info.value.type !== "File" || (info.value.mode & 0o111) === 0) return false
    let output = ""
    const decoder = new TextDecoder()
    const sink = {
      write: (chunk: Uint8Array) => {
        output += decoder.decode(chunk, { stream: true })
        if (output.length > MAX_OUTPUT * 2) output = output.slice(-MAX_OUTPUT)
      },
    }
    const env = Object.fromEntries(Object.entries(options.env).filter((e): e is [string, string] => typeof e[1] === "string"))
    const outcome = yield* runner
      .run({ file, args: [...options.args], cwd: options.cwd, env, timeoutMs: options.timeoutMs, killGraceMs: 2000, drainMs: 500, stdout: sink, stderr: sink })
      .pipe(Effect.mapError((e) => gitError("failed", `The ${options.name} hook could not run: ${e.message}`)))
    const text = output.trim()
    const details = text === "" ? "" : `Hook output:\n${text}`
    if (outcome.timedOut) {
      return yield* Effect.fail(
        gitError(
          "timeout",
          `The ${options.name} hook did not finish within ${options.timeoutMs / 1000} s and was stopped; nothing was committed. ` +
            `If it needs longer, raise git.hook_timeout_ms in anvil.json; if it waits for input, ask the user to run the commit.`,
          { details },
        ),
      )
    }
    if (outcome.exitCode !== 0) {
      const how = outcome.exitCode === null ? `ended by ${outcome.signal ?? "a signal"}` : `exit code ${outcome.exitCode}`
      // Whole: a long output is cut (and saved whole) by the framework's truncation, like any tool's text.
      return yield* Effect.fail(gitError("failed", `The ${options.name} hook refused the commit (${how}); nothing was committed. Fix what its output says, stage the fixes with git_add, and commit again.`, { details }))
    }
    return true
  })
