import { Effect, Schema } from "effect"
import { formatMedium, formatOneline, readHistory, subjectOf } from "../git/history.ts"
import { cliHistory } from "../git/cli-backend.ts"
import { gitCli } from "../git/git-cli.ts"
import { openRepository } from "../git/repository.ts"
import { hint } from "../protocol/hint.ts"
import { GitFs } from "../git/git-fs.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { defineTool } from "../tool-framework/definition.ts"
import description from "./git_log.md" with { type: "text" }
import { withGitErrors } from "./git-errors.ts"
import { counted } from "../protocol/plural.ts"

const DEFAULT_LIMIT = 20
const MAX_LIMIT = 10000

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
      const repo = yield* openRepository
      const wanted = limit ?? DEFAULT_LIMIT
      const cli = yield* gitCli
      const { commits, more } = cli ? yield* cliHistory(repo, cli, wanted) : yield* repo.call("log", () => readHistory(repo, wanted))
      const content = oneline === true ? formatOneline(commits) : formatMedium(commits)
      const summary =
        commits.length === 0
          ? "No commits yet."
          : more
            ? `Showing the newest ${counted(commits.length, "commit")} (TRUNCATED: more history exists).`
            : `${counted(commits.length, "commit")}.`
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
        },
        text: content === "" ? summary : `${summary}\n\n${content}`,
        stats: { commits: commits.length },
        ...(more
          ? {
              hints: [hint("GitLog", "high", { limit: Math.min(wanted * 5, MAX_LIMIT), oneline: true })],
              truncation: { reason: "limit", total_estimate: commits.length + 1 },
            }
          : {}),
      }
    })),
})
