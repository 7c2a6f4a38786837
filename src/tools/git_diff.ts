import { Effect, Schema } from "effect"
import { cliDiff } from "../git/cli-backend.ts"
import { gitCli } from "../git/git-cli.ts"
import { openRepository } from "../git/repository.ts"
import { detectsCopies, detectsRenames } from "../git/repository-config.ts"
import { GitFs } from "../git/git-fs.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { toolError } from "../protocol/tool-error.ts"
import { Workspace } from "../workspace/workspace.ts"
import { showPath } from "../workspace/path-bytes.ts"
import description from "./git_diff.md" with { type: "text" }
import { withGitErrors } from "./git-errors.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { gitHidden, withheldReport } from "./git-hidden.ts"
import { refuseHiddenRoot } from "./hidden-search.ts"
import { nestedRepositoryOf } from "../git/nested-repository.ts"
import { shellQuote } from "../protocol/hint.ts"

/** git_diff: unified diffs of unstaged (index → working tree) or staged (HEAD → index) changes. */
export const gitDiffTool = defineTool({
  name: "git_diff",
  requires: [GitFs, ProcessRunner],
  title: "GitDiff",
  description,
  readOnly: true,
  permission: "allow",
  parameterAliases: { cached: "staged", file_path: "path" },
  parameters: Schema.Struct({
    staged: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "git diff --staged." }),
    ),
    path: Schema.optionalKey(Schema.String.annotate({ description: "Only this file or folder." })),
  }),
  // A diff of a path `read` may not open is refused as read refuses it (a deleted file's content included).
  precheck: ({ path }) => (path === undefined || path === "" ? Effect.void : refuseHiddenRoot("git_diff", path, true)),
  run: ({ staged, path }) =>
    withGitErrors(withWorkspaceErrors(Effect.gen(function* () {
      const workspace = yield* Workspace
      const repo = yield* openRepository
      const hidden = yield* gitHidden("git_diff", repo)
      let prefix: string | undefined
      let exists = true
      if (path !== undefined && path !== "" && path !== ".") {
        const resolved = yield* workspace.resolve(path)
        exists = resolved.exists
        prefix = repo.relative(resolved.absolute)
        if (prefix === undefined) {
          return yield* toolError("INVALID_PARAM", `'${path}' is outside the repository at ${workspace.display(repo.dir)}.`, {
            fieldErrors: [{ field: "path", message: "outside the repository" }],
          })
        }
      }
      const prefixes = prefix !== undefined && prefix !== "" ? [prefix] : []
      const cli = yield* gitCli
      // Renames are looked for in the staged diff only: the unstaged one reads no git config.
      const renames = staged === true && detectsRenames(repo.settings(), "diff")
      const options = { staged: staged === true, prefixes, renames, copies: renames && detectsCopies(repo.settings(), "diff"), hides: hidden?.hides }
      // The built-in diff (and the diff library under it) is loaded only when there is no git to run.
      const diff = cli
        ? yield* cliDiff(repo, cli, options)
        : yield* Effect.flatMap(Effect.promise(() => import("../git/changes.ts")), (m) => m.repositoryDiff(repo, options))
      const which = staged === true ? "staged" : "unstaged"
      const shown = prefix ? showPath(prefix) : undefined
      const scope = shown ? ` in ${shown}` : ""
      const additions = diff.files.reduce((n, f) => n + f.additions, 0)
      const deletions = diff.files.reduce((n, f) => n + f.deletions, 0)
      // A path that names nothing on disk has no changes to show: say so rather than "no changes" (a wildcard is no pattern here).
      const withheld = withheldReport(hidden, diff.withheld, "changed path")
      const missing = diff.files.length === 0 && diff.withheld.length === 0 && !exists
      // A path below a submodule: git diffs nothing there from this repository, which is no sign of no change.
      const nested = diff.files.length === 0 && prefix ? nestedRepositoryOf(repo.dir, prefix) : undefined
      const summary = missing
        ? `No ${which} changes${scope}: no file or folder '${shown}' exists in the work tree${/[*?[]/.test(prefix ?? "") ? " (the path is taken literally, not as a wildcard pattern)" : ""}. Name one file or folder, or leave path out for every change${staged === true ? "" : " (a file removed with git rm shows with staged: true)"}.`
        : diff.files.length === 0 && nested !== undefined
          ? `No ${which} changes${scope} in this repository: ${shown} is inside ${showPath(nested)}, a repository of its own (a submodule), whose changes are its own: Bash \`git -C ${shellQuote(nested)} diff${staged === true ? " --staged" : ""} -- ${shellQuote(prefix!.slice(nested.length + 1))}\` shows them; git_diff of '${showPath(nested)}' shows which commit this repository records for it.`
          : diff.files.length === 0
            ? `No ${which} changes${scope}.${staged === true ? "" : " (Untracked files are not shown; see git_status.)"}`
          : `${diff.files.length} file${diff.files.length === 1 ? "" : "s"} with ${which} changes${scope}: +${additions} -${deletions}.`
      const conflicted =
        diff.unmerged.length > 0
          ? `\n\nMerge conflicts in ${diff.unmerged.join(", ")}: not diffed here (git shows a combined diff); Read the files to see the conflict markers.`
          : ""
      return {
        header: `GitDiff${staged === true ? " (staged)" : ""}${shown ? `: ${shown}` : ""}`,
        data: { content: diff.content, files: diff.files, staged: staged === true, ...(diff.unmerged.length > 0 ? { unmerged: diff.unmerged } : {}), ...withheld.data },
        text: `${summary}${withheld.text === "" ? "" : ` ${withheld.text}`}${conflicted}${diff.content === "" ? "" : `\n\n${diff.content}`}`,
        stats: { files: diff.files.length, additions, deletions },
        ...(path !== undefined ? { context: { path_resolved: prefix ?? "." } } : {}),

      }
    }))),
})
