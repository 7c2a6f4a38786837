import { Effect, Schema } from "effect"
import { countHistory, formatMedium, formatOneline, readHistory, subjectOf } from "../git/history.ts"
import { cliHistory } from "../git/cli-backend.ts"
import { gitCli } from "../git/git-cli.ts"
import { DEFAULT_LOG_LIMIT as DEFAULT_LIMIT, MAX_LOG_LIMIT as MAX_LIMIT } from "../git/git-command.ts"
import { openHistory } from "../git/repository.ts"
import { shallowBoundary } from "../git/shallow.ts"
import { hint } from "../protocol/hint.ts"
import { GitFs } from "../git/git-fs.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./git_log.md" with { type: "text" }
import { withGitErrors } from "./git-errors.ts"
import { counted } from "../protocol/plural.ts"


/** git_log: commit history from HEAD, as `git log` or `git log --oneline` prints it. */
export const gitLogTool = defineTool({
  name: "git_log",
  requires: [GitFs, ProcessRunner],
  title: "GitLog",
  description,
  readOnly: true,
  permission: "allow",
  parameterAliases: { max_count: "limit", n: "limit" },
  parameters: Schema.Struct({
    limit: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_LIMIT })).annotate({
        description: `Commits (default ${DEFAULT_LIMIT}).`,
      }),
    ),
    oneline: Schema.optionalKey(Schema.Boolean.annotate({ description: "git log --oneline." })),
  }),
  run: ({ limit, oneline }) =>
    withGitErrors(Effect.gen(function* () {
      // History needs no work tree: a bare repository's log is read as git reads it there.
      const repo = yield* openHistory
      const wanted = limit ?? DEFAULT_LIMIT
      const cli = yield* gitCli
      const page = cli ? yield* cliHistory(repo, cli, wanted) : yield* repo.call("log", () => readHistory(repo, wanted))
      const { commits, more } = page
      const content = oneline === true ? formatOneline(commits) : formatMedium(commits)
      // A cut history states its total (counted only then: one more git call, or a walk of the parents).
      const total = !more
        ? undefined
        : cli
          ? page.total
          : yield* repo.call("log", () => countHistory(repo)).pipe(Effect.orElseSucceed(() => undefined))
      const summary =
        commits.length === 0
          ? "No commits yet."
          : more
            ? total !== undefined
              ? `Showing the newest ${counted(commits.length, "commit")} of ${total} (TRUNCATED: ${total - commits.length} older not shown).`
              : `Showing the newest ${counted(commits.length, "commit")} (TRUNCATED: more history exists).`
            : `${counted(commits.length, "commit")}.`
      // A shallow clone's log ends where the clone was cut, not at the project's first commit: said, not left to look complete.
      const cutAt = shallowBoundary(repo)
      const cut =
        cutAt.length === 0
          ? ""
          : ` History is cut: this is a shallow clone (git clone --depth), so commits before ${cutAt.map((oid) => oid.slice(0, 7)).join(", ")} are not in this repository${more ? " and not counted" : ""}; \`git fetch --unshallow\` fetches them.`
      // The rest: a larger limit while the maximum allows, else git itself from the first commit not shown.
      const restHint =
        wanted < MAX_LIMIT
          ? hint("GitLog", "high", { limit: Math.min(Math.max(wanted * 5, total ?? 0), MAX_LIMIT), oneline: true })
          : hint("Bash", "high", { command: `git log --oneline --skip=${commits.length}` })
      return {
        ...(more ? { status: "partial" as const } : {}),
        header: `GitLog${oneline === true ? " (oneline)" : ""}`,
        data: {
          content,
          commits: commits.map((c) => ({
            oid: c.oid,
            author: c.author.name,
            email: c.author.email,
            date: new Date(c.author.timestamp * 1000).toISOString(),
            subject: subjectOf(c.message),
          })),
          truncated: more,
          ...(more ? { total_commits: total ?? null } : {}),
          ...(cutAt.length > 0 ? { shallow: true, shallow_boundary: cutAt } : {}),
        },
        text: content === "" ? `${summary}${cut}` : `${summary}${cut}\n\n${content}`,
        stats: { commits: commits.length },
        ...(more
          ? {
              hints: [restHint],
              truncation: { reason: "limit", total_estimate: total ?? commits.length + 1 },
            }
          : {}),
      }
    })),
})
