import { Effect, Schema } from "effect"
import { cliStatus } from "../git/cli-backend.ts"
import { gitCli } from "../git/git-cli.ts"
import { openRepository, type Repository } from "../git/repository.ts"
import { countEntries, currentUpstream, formatLong, headLines, formatShort, readHead, sparseCheckoutPercent, statusEntries, withoutHints } from "../git/status.ts"
import type { UntrackedMode } from "../git/git-command.ts"
import { FALSE, untrackedMode } from "../git/repository-config.ts"
import { fileModeMatters, readSnapshot } from "../git/tree-states.ts"
import { GitFs } from "../git/git-fs.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./git_status.md" with { type: "text" }
import { withGitErrors } from "./git-errors.ts"
import { gitHidden, splitHidden, withheldReport } from "./git-hidden.ts"

const count = (n: number, what: string) => `${n} ${what}`

/** The status read with isomorphic-git, when no git executable is used. */
const builtinStatus = (repo: Repository, mode: UntrackedMode) =>
  Effect.gen(function* () {
    const fileMode = yield* repo.call("config", () => fileModeMatters(repo))
    const snapshot = yield* readSnapshot(repo, { workdir: true })
    const entries = yield* repo.call("status", () => statusEntries(repo, snapshot, fileMode, mode))
    const head = yield* repo.call("rev-parse", () => readHead(repo))
    const upstream = yield* repo.call("status", () => currentUpstream(repo, head))
    return { entries, head, upstream }
  })

/** git_status: the working tree's state, as `git status` or `git status --porcelain` prints it. */
export const gitStatusTool = defineTool({
  name: "git_status",
  requires: [GitFs, ProcessRunner],
  title: "GitStatus",
  description,
  readOnly: true,
  permission: "allow",
  parameters: Schema.Struct({
    short: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "git status --porcelain." }),
    ),
  }),
  run: ({ short }) =>
    withGitErrors(Effect.gen(function* () {
      const repo = yield* openRepository
      const cli = yield* gitCli
      // status.showUntrackedFiles from the repository's or the user's git config, as git status honours it.
      const mode = untrackedMode(repo.settings())
      const answer = cli ? yield* cliStatus(repo, cli, mode) : yield* builtinStatus(repo, mode)
      const { upstream } = answer
      // What `read` may not open is not named: an untracked folder ("dir/") or a submodule is judged as a folder.
      const hidden = yield* gitHidden("git_status", repo)
      const { kept: entries, withheld } = splitHidden(hidden, answer.entries, (e) => {
        const dir = e.path.endsWith("/") || e.submodule !== undefined
        const path = e.path.replace(/\/$/, "")
        return e.orig_path === undefined ? [{ path, dir }] : [{ path: e.orig_path, dir }, { path, dir }]
      })
      const report = withheldReport(hidden, withheld, "changed path")
      const sparsePercent = short === true ? undefined : yield* repo.call("status", async () => sparseCheckoutPercent(repo))
      const head = sparsePercent === undefined ? answer.head : { ...answer.head, sparsePercent }
      const { unmerged, staged, unstaged, untracked } = countEntries(entries)
      const long = () => formatLong(entries, head, upstream, mode)
      // advice.statusHints = false: git prints no advice lines, and neither does the tool.
      const content = short === true ? formatShort(entries) : FALSE.test(repo.settings().get("advice.statushints") ?? "") ? withoutHints(long()) : long()
      // The long format's first line: a detached HEAD named as git names it, or the rebase under way.
      const where = headLines(head, undefined, 0)[0]!.replace(/\.$/, "")
      const summary =
        entries.length === 0 && withheld.length === 0
          ? `${where}: nothing to commit, working tree clean.`
          : `${where}: ${[...(unmerged > 0 ? [count(unmerged, "unmerged (conflicts)")] : []), count(staged, "staged"), count(unstaged, "unstaged"), count(untracked, "untracked")].join(", ")}.`
      const note = report.text === "" ? "" : `\n\n${report.text}`
      return {
        header: `GitStatus: ${head.branch ?? "(detached)"}`,
        data: {
          content,
          branch: head.branch ?? null,
          commit: head.commit ?? null,
          entries,
          clean: entries.length === 0 && withheld.length === 0,
          ...(upstream ? { upstream } : {}),
          ...report.data,
        },
        text: short === true ? `${summary}${content ? `\n\n${content}` : ""}${note}` : `${content}${note}`,
        stats: { staged, unstaged, untracked, unmerged },
      }
    })),
})
