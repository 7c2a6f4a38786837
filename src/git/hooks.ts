import { Effect, Stream } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import * as ChildProcess from "effect/process/ChildProcess"
import { ChildProcessSpawner } from "effect/process/ChildProcessSpawner"
import { gitError, type GitError } from "./git-error.ts"

/**
 * Runs a repository hook (pre-commit, commit-msg) the way git does: only when
 * the file exists and is executable, in the work tree, with `args`. A non-zero
 * exit stops the commit with the hook's output. isomorphic-git never runs
 * hooks, so git_commit calls this itself: a commit is never made with hooks
 * skipped (the effect of --no-verify).
 */
export const runHook = (options: {
  readonly hooksDir: string
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
}): Effect.Effect<boolean, GitError, FileSystem | Path | ChildProcessSpawner> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const file = path.join(options.hooksDir, options.name)
    const info = yield* fs.stat(file).pipe(Effect.option)
    if (info._tag === "None" || info.value.type !== "File" || (info.value.mode & 0o111) === 0) return false
    const result = yield* Effect.scoped(
      Effect.gen(function* () {
        const handle = yield* ChildProcess.make(file, [...options.args], { cwd: options.cwd, env: { ...options.env }, extendEnv: false })
        const output = yield* handle.all.pipe(Stream.decodeText, Stream.mkString)
        const code = yield* handle.exitCode
        return { code: Number(code), output }
      }),
    ).pipe(Effect.mapError((e) => gitError("failed", `The ${options.name} hook could not run: ${e.message}`)))
    if (result.code !== 0) {
      const text = result.output.trim()
      return yield* Effect.fail(
        gitError("failed", `The ${options.name} hook refused the commit (exit code ${result.code}); nothing was committed.`, {
          // Whole: a long output is cut (and saved whole) by the framework's truncation, like any tool's text.
          details: text === "" ? "" : `Hook output:\n${text}`,
        }),
      )
    }
    return true
  })
