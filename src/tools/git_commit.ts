import { Clock, Effect, Schema } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { isoGit } from "../git/iso-git.ts"
import { Config } from "../config/config.ts"
import { runHook } from "../git/hooks.ts"
import { GIT_DEFAULTS } from "../config/sections/git.ts"
import { resolveIdentity } from "../git/identity.ts"
import { cliCommit, cliStagedChanges } from "../git/cli-backend.ts"
import { gitCli } from "../git/git-cli.ts"
import { gitZone } from "../git/history.ts"
import { openRepository, type Repository } from "../git/repository.ts"
import { readHead, stagedRenames } from "../git/status.ts"
import { atRebaseEditStop, unfinishedOperation } from "../git/operation.ts"
import { compareBytes, readSnapshot } from "../git/tree-states.ts"
import { unmergedStages } from "../git/index-file.ts"
import { hint, shellQuote } from "../protocol/hint.ts"
import { GitFs } from "../git/git-fs.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import description from "./git_commit.md" with { type: "text" }
import { withGitErrors } from "./git-errors.ts"
import { showPath } from "../workspace/path-bytes.ts"
import { gitHidden, splitHidden, withheldReport } from "./git-hidden.ts"

/** Options that rewrite history, force or skip checks: never honoured, even written into the message. */
const REFUSED = /^(?:--?)(amend|force|no-verify|no-edit|allow-empty|allow-empty-message|fixup|squash|reset-author|all|a|n|f|c|C)\b/

/** A time as git's date variables take it: "@<seconds> <zone>". */
const gitTime = (when: { timestamp: number; timezoneOffset: number }) => `@${when.timestamp} ${gitZone(when.timezoneOffset)}`

/** `git commit -m` cleanup ("whitespace" mode): trailing spaces, leading/trailing and repeated blank lines go. */
export const cleanMessage = (message: string): string =>
  message
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .replace(/^\n+|\n+$/g, "")

/** The staged changes read with isomorphic-git (no git executable). */
const builtinStagedChanges = (repo: Repository) =>
  Effect.gen(function* () {
    const snapshot = yield* readSnapshot(repo, { workdir: false })
    const renames = yield* repo.call("diff", () => stagedRenames(repo, snapshot.states))
    const renamedFrom = new Set(renames.map((r) => r.from))
    const renamedTo = new Map(renames.map((r) => [r.to, r.from]))
    const changes = snapshot.states
      .filter((s) => !renamedFrom.has(s.path))
      .flatMap((s): ReadonlyArray<{ path: string; change: string; from?: string }> => {
        if (renamedTo.has(s.path)) return [{ path: s.path, change: "renamed", from: renamedTo.get(s.path)! }]
        if (!s.head && !s.stage) return []
        if (s.head && s.stage) return s.head.oid === s.stage.oid && s.head.mode === s.stage.mode ? [] : [{ path: s.path, change: "modified" }]
        return [{ path: s.path, change: s.stage ? "added" : "deleted" }]
      })
      .sort((a, b) => compareBytes(a.path, b.path))
    return changes
  })

/** git_commit: records the staged changes as a new commit on the current branch. */
export const gitCommitTool = defineTool({
  name: "git_commit",
  requires: [GitFs, ProcessRunner],
  title: "GitCommit",
  description,
  permission: "ask",
  parameterAliases: { m: "message", msg: "message" },
  parameters: Schema.Struct({
    message: Schema.String.annotate({ description: "Subject, optionally a blank line and a body." }),
  }),
  run: ({ message }) =>
    withGitErrors(Effect.gen(function* () {
      const trimmed = message.trim()
      const flag = REFUSED.exec(trimmed) ?? /["']\s*(--(?:amend|force|no-verify))\b/.exec(trimmed)
      if (flag) {
        return yield* Effect.fail(
          invalidParam(
            "message",
            `'${flag[0].replace(/^["']\s*/, "")}' looks like a git option. git_commit only takes a message: it never amends, forces, skips hooks (--no-verify) or commits unstaged files.`,
          ),
        )
      }
      const text = cleanMessage(message)
      if (text === "") return yield* Effect.fail(invalidParam("message", "the commit message is empty"))
      if (text.includes("\0")) return yield* Effect.fail(invalidParam("message", "the message contains a NUL byte (\\0), which git cannot store; remove it"))

      const repo = yield* openRepository
      const fs = yield* FileSystem
      const path = yield* Path
      const config = yield* Config
      if (yield* fs.exists(path.join(repo.gitdir, "MERGE_HEAD")).pipe(Effect.orElseSucceed(() => false))) {
        return yield* Effect.fail(
          toolError("CONFLICT", "A merge is in progress; git_commit does not conclude merges. Finish it with the git command line.", {
            hints: [hint("Bash", "medium", { command: "git status && git commit --no-edit" })],
          }),
        )
      }
      const head = yield* repo.call("rev-parse", () => readHead(repo))
      // A commit made now would cut across the operation (and lose the message and author it carries).
      const unfinished = head.operation ? unfinishedOperation(head.operation) : undefined
      if (unfinished) {
        return yield* Effect.fail(
          toolError("CONFLICT", `${unfinished.what}; git_commit does not continue it. Stage the resolved files with git_add, then continue it with the git command line.`, {
            hints: [hint("Bash", "medium", { command: unfinished.next })],
          }),
        )
      }
      const editStop = head.operation !== undefined && atRebaseEditStop(head.operation)
      if (head.branch === undefined && !editStop) {
        return yield* Effect.fail(
          toolError("CONFLICT", "HEAD is detached: a commit here would belong to no branch. Switch to a branch first.", {
            hints: [hint("Bash", "medium", { command: "git switch -c <new-branch>" })],
          }),
        )
      }
      // Conflicts not yet marked resolved: git refuses to commit (a stash popped or a checkout -m left them).
      const conflicted = [...unmergedStages(repo.readGitFile(repo.indexFile) ?? new Uint8Array(0)).keys()].sort(compareBytes)
      // Counted all, named only where `read` may open them.
      const hidden = yield* gitHidden("git_commit", repo)
      const unmerged = splitHidden(hidden, conflicted, (path) => [{ path, dir: false }]).kept
      if (conflicted.length > 0) {
        const named = unmerged.length === 0 ? "" : ` (${unmerged.slice(0, 20).join(", ")}${unmerged.length > 20 || unmerged.length < conflicted.length ? ", …" : ""})`
        return yield* Effect.fail(
          toolError(
            "CONFLICT",
            `Committing is not possible: ${conflicted.length === 1 ? "a file has" : `${conflicted.length} files have`} unresolved conflicts${named}. Resolve the conflict markers, stage the files with git_add, then commit.`,
            { hints: [hint("GitStatus", "high", {}), ...(unmerged.length > 0 ? [hint("GitAdd", "medium", { paths: unmerged.slice(0, 5) })] : [])] },
          ),
        )
      }
      const cli = yield* gitCli
      const stagedChanges = cli ? cliStagedChanges(repo, cli) : builtinStagedChanges(repo)
      const nothingStaged = (after: string) =>
        Effect.fail(
          toolError("EXECUTION_ERROR", `Nothing to commit: no changes are staged${after}. Stage files with git_add first.`, {
            hints: [hint("GitStatus", "high", { short: true }), hint("GitAdd", "medium", { paths: ["<path>"] })],
          }),
        )
      let changes = yield* stagedChanges
      if (changes.length === 0) return yield* nothingStaged("")

      const gitConfig = repo.settings()
      const { author, committer } = yield* resolveIdentity(gitConfig, config.env)
      const hooksPath = gitConfig.get("core.hookspath")
      const hooksDir = hooksPath ? path.resolve(repo.dir, hooksPath.replace(/^~(?=\/)/, config.env.HOME ?? "~")) : path.join(repo.commondir, "hooks")
      const hookEnv = { ...config.env, GIT_INDEX_FILE: repo.indexFile }
      const timeoutMs = config.get("git.hook_timeout_ms", GIT_DEFAULTS.hook_timeout_ms)
      // As git, the index is read again after pre-commit: a hook may stage (a formatter's output) or unstage files.
      if (yield* runHook({ hooksDir, name: "pre-commit", args: [], cwd: repo.dir, env: hookEnv, timeoutMs })) {
        changes = yield* stagedChanges
        if (changes.length === 0) return yield* nothingStaged(" (the pre-commit hook left none)")
      }
      let finalMessage = text
      const msgFile = path.join(repo.gitdir, "COMMIT_EDITMSG")
      yield* fs.writeFileString(msgFile, `${text}\n`).pipe(Effect.orElseSucceed(() => undefined))
      // git's order and arguments for a message given with -m; either hook may rewrite the message file.
      for (const [name, args] of [["prepare-commit-msg", [msgFile, "message"]], ["commit-msg", [msgFile]]] as const) {
        if (!(yield* runHook({ hooksDir, name, args, cwd: repo.dir, env: hookEnv, timeoutMs }))) continue
        finalMessage = cleanMessage(yield* fs.readFileString(msgFile).pipe(Effect.orElseSucceed(() => finalMessage)))
        // The hook is at fault, not the message: its code says what it keeps (another message would fare the same).
        if (finalMessage === "") {
          const file = path.join(hooksDir, name)
          const shown = file.startsWith(repo.dir + path.sep) ? path.relative(repo.dir, file) : file
          return yield* Effect.fail(invalidParam("message", `the ${name} hook left an empty message`, [hint("Bash", "high", { command: `cat ${shellQuote(shown)}` })]))
        }
      }

      const millis = yield* Clock.currentTimeMillis
      const when = { timestamp: Math.floor(millis / 1000), timezoneOffset: new Date(millis).getTimezoneOffset() }
      const oid = cli
        ? yield* cliCommit(repo, cli, `${finalMessage}\n`, {
            GIT_AUTHOR_NAME: author.name,
            GIT_AUTHOR_EMAIL: author.email,
            GIT_AUTHOR_DATE: gitTime(when),
            GIT_COMMITTER_NAME: committer.name,
            GIT_COMMITTER_EMAIL: committer.email,
            GIT_COMMITTER_DATE: gitTime(when),
          })
        : yield* repo.call("commit", async () =>
            (await isoGit()).commit({
              fs: repo.fs,
              dir: repo.dir,
              gitdir: repo.gitdir,
              message: `${finalMessage}\n`,
              author: { ...author, ...when },
              committer: { ...committer, ...when },
              cache: repo.cache,
            }),
          )
      // As git: post-commit runs once the commit exists, and its failure changes nothing.
      yield* runHook({ hooksDir, name: "post-commit", args: [], cwd: repo.dir, env: hookEnv, timeoutMs }).pipe(Effect.ignore)
      const subject = finalMessage.split("\n")[0]!
      const root = head.commit === undefined ? " (root-commit)" : ""
      // Committed all the same: only the names `read` may not open are left out of the answer.
      const all = changes
      const { kept: shown, withheld } = splitHidden(hidden, all, (c) => [...(c.from === undefined ? [] : [{ path: c.from, dir: false }]), { path: c.path, dir: false }])
      const report = withheldReport(hidden, withheld, "committed path")
      const lines = shown.map((c) =>
        c.change === "renamed" ? ` rename ${showPath(c.from!)} => ${showPath(c.path)}` : ` ${c.change === "added" ? "create" : c.change === "deleted" ? "delete" : "modify"} ${showPath(c.path)}`,
      )
      // At a rebase's edit stop the commit goes on the detached HEAD, as git's does; the rebase goes on from it.
      const rebasing = head.branch === undefined
        ? `\nCommitted on the detached HEAD of the interactive rebase stopped here (an 'edit' or 'break' stop), as git commit does; \`git rebase --continue\` goes on from this commit.`
        : ""
      return {
        header: `GitCommit: ${oid.slice(0, 7)}`,
        data: { ok: true, commit: oid, branch: head.branch ?? null, subject, files: shown, ...report.data, ...(head.branch === undefined ? { detached: true, rebase: true } : {}) },
        text: `[${head.branch ?? "detached HEAD"}${root} ${oid.slice(0, 7)}] ${subject}\n ${all.length} file${all.length === 1 ? "" : "s"} changed\n${lines.join("\n")}${report.text === "" ? "" : `\n${report.text}`}${rebasing}`,
        stats: { files: all.length },
        ...(head.branch === undefined ? { hints: [hint("Bash", "medium", { command: "git rebase --continue" })] } : {}),
      }
    })),
})
