import { Effect, Schema } from "effect"
import { isoGit } from "../git/iso-git.ts"
import { cliAdd, type AddAnswer } from "../git/cli-backend.ts"
import { gitCli } from "../git/git-cli.ts"
import { openRepository, type Repository } from "../git/repository.ts"
import { EMBEDDED, fileModeMatters, GITLINK, readSnapshot } from "../git/tree-states.ts"
import { resolveRef } from "../git/refs.ts"
import { hint, shellQuote } from "../protocol/hint.ts"
import { GitFs } from "../git/git-fs.ts"
import { ProcessRunner } from "../process/process-runner.ts"
import { defineTool } from "../tool-framework/definition.ts"
import { toolError, type ToolError } from "../protocol/tool-error.ts"
import { closeQuietly } from "../workspace/checked-fs.ts"
import { openChecked } from "../workspace/checked-open.ts"
import { Workspace } from "../workspace/workspace.ts"
import { showPath } from "../workspace/path-bytes.ts"
import description from "./git_add.md" with { type: "text" }
import { withGitErrors } from "./git-errors.ts"
import { gitHidden, splitHidden, withheldReport } from "./git-hidden.ts"
import { gitError, type GitError } from "../git/git-error.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { counted } from "../protocol/plural.ts"

const under = (path: string, prefix: string) => prefix === "" || path === prefix || path.startsWith(`${prefix}/`)

/** `git add` with isomorphic-git (no git executable): the same answer as the command line's. */
const builtinAdd = (repo: Repository, prefixes: ReadonlyArray<string>): Effect.Effect<AddAnswer, ToolError | GitError> =>
  Effect.gen(function* () {
    const fileMode = yield* repo.call("config", () => fileModeMatters(repo))
    const snapshot = yield* readSnapshot(repo, { workdir: true, prefixes })
    const toAdd: Array<{ path: string; change: string }> = []
    const toRemove: Array<string> = []
    // A submodule's new commit is recorded as such; its files stay its own (changes inside it are not staged here).
    const links: Array<{ path: string; oid: string; change: string }> = []
    for (const s of snapshot.states) {
      if (s.stage && !s.workdir) toRemove.push(s.path)
      else if (s.stage?.mode === GITLINK && s.workdir) {
        if (s.workdir.oid !== undefined && s.workdir.oid !== s.stage.oid) links.push({ path: s.path, oid: s.workdir.oid, change: "modified" })
      } else if (s.workdir?.mode === EMBEDDED) {
        // A repository inside the working tree is added as a submodule entry of its current commit, as git adds it.
        const path = s.path.replace(/\/$/, "")
        const inner = repo.submodule(path)
        const oid = typeof inner === "string" ? undefined : resolveRef(inner, "HEAD")
        if (oid === undefined) return yield* Effect.fail(gitError("failed", `git add failed: '${s.path}' does not have a commit checked out`))
        links.push({ path, oid, change: "added" })
      }
      else if (s.workdir && !s.stage) toAdd.push({ path: s.path, change: s.head ? "modified" : "added" })
      else if (s.workdir && s.stage) {
        const differs = s.workdir.oid !== s.stage.oid || (fileMode && s.workdir.mode !== s.stage.mode)
        if (differs) toAdd.push({ path: s.path, change: s.head ? "modified" : "added" })
      }
    }
    const ignored: Array<string> = []
    const unmatched: Array<number> = []
    for (const [i, prefix] of prefixes.entries()) {
      if (snapshot.states.some((s) => under(s.path, prefix))) continue
      const isIgnored = yield* repo.call("check-ignore", async () => {
        const isDir = await repo.fs.promises.stat(`${repo.dir}/${prefix}`).then((st) => st.isDirectory(), () => false)
        return repo.workTree().excluded(prefix, isDir)
      })
      if (isIgnored) ignored.push(prefix)
      else unmatched.push(i)
    }
    if (unmatched.length > 0) return { changes: [], ignored: [], unmatched }
    if (toAdd.length > 0) {
      yield* repo.call("add", async () => (await isoGit()).add({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, filepath: toAdd.map((a) => a.path), cache: repo.cache }))
    }
    for (const link of links) {
      yield* repo.call("add", async () => (await isoGit()).updateIndex({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, filepath: link.path, oid: link.oid, mode: GITLINK, add: true, cache: repo.cache }))
    }
    for (const path of toRemove) {
      yield* repo.call("rm", async () => (await isoGit()).remove({ fs: repo.fs, dir: repo.dir, gitdir: repo.gitdir, filepath: path, cache: repo.cache }))
    }
    const changes = [...toAdd, ...links.map(({ path, change }) => ({ path, change })), ...toRemove.map((path) => ({ path, change: "deleted" }))].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    return { changes, ignored, unmatched }
  })

/** git_add: stages files (new, modified and deleted) for the next commit, like `git add <paths>`. */
export const gitAddTool = defineTool({
  name: "git_add",
  requires: [GitFs, ProcessRunner],
  title: "GitAdd",
  description,
  permission: "ask",
  parameterAliases: { path: "paths", file_path: "paths", files: "paths" },
  parameters: Schema.Struct({
    paths: Schema.Union([Schema.String, Schema.Array(Schema.String)]).annotate({
      description: 'Files or folders (".": all).',
    }),
  }),
  run: ({ paths }) =>
    withGitErrors(withWorkspaceErrors(Effect.gen(function* () {
      const workspace = yield* Workspace
      const repo = yield* openRepository
      const given = typeof paths === "string" ? [paths] : paths
      if (given.length === 0) return yield* Effect.fail(toolError("INVALID_PARAM", "Name at least one path to stage.", { fieldErrors: [{ field: "paths", message: "empty" }] }))
      const prefixes: Array<string> = []
      for (const p of given) {
        // git refuses an empty pathspec; taken as the project root it would stage every file.
        if (p.trim() === "") {
          return yield* Effect.fail(
            toolError("INVALID_PARAM", 'An empty path names no file; name the files or folders to stage ("." stages everything).', {
              fieldErrors: [{ field: "paths", message: "empty path" }],
            }),
          )
        }
        const resolved = yield* workspace.resolve(p, "paths")
        // Checked again on the opened file or folder, where it really is now (a link swapped in since is refused).
        // A link named that leads out of the project is refused too (`"."` stages such a link as git does: its
        // target's name, never what it leads to).
        const opened = yield* openChecked(workspace.contains, resolved.absolute, p, resolved.display, "paths")
        closeQuietly(opened?.fd)
        const rel = repo.relative(resolved.absolute)
        if (rel === undefined) {
          return yield* Effect.fail(
            toolError("INVALID_PARAM", `'${p}' is outside the repository.`, { fieldErrors: [{ field: "paths", message: "outside the repository" }] }),
          )
        }
        if (rel === ".git" || rel.startsWith(".git/")) {
          return yield* Effect.fail(toolError("INVALID_PARAM", `'${p}' is inside .git and cannot be staged.`, { fieldErrors: [{ field: "paths", message: "inside .git" }] }))
        }
        prefixes.push(rel)
      }
      const cli = yield* gitCli
      const staged = cli ? yield* cliAdd(repo, cli, prefixes) : yield* builtinAdd(repo, prefixes)
      if (staged.unmatched.length > 0) {
        const unmatched = staged.unmatched.map((i) => given[i]!)
        // Paths are taken literally (no shell expands them here): a wildcard matches only a file of that very name.
        const pattern = unmatched.find((p) => /[*?[]/.test(p))
        return yield* Effect.fail(
          toolError(
            "NOT_FOUND",
            `pathspec '${unmatched.join("', '")}' did not match any files; nothing was staged.${pattern !== undefined ? " git_add takes paths, not wildcard patterns: find the files first and name them (or their folder)." : ""}`,
            {
              fieldErrors: [{ field: "paths", message: "no matching files" }],
              hints: pattern !== undefined ? [hint("Glob", "high", { pattern }), hint("GitStatus", "medium", { short: true })] : [hint("GitStatus", "medium", { short: true })],
            },
          ),
        )
      }
      if (staged.inSubmodule !== undefined) {
        const { index, submodule } = staged.inSubmodule
        const inside = prefixes[index]!.slice(submodule.length + 1)
        return yield* Effect.fail(
          toolError(
            "INVALID_PARAM",
            `'${given[index]}' is inside the submodule '${submodule}', a repository of its own: git_add stages this repository's files only, and nothing was staged. Stage it in the submodule and commit there; git_add '${submodule}' then stages the submodule's new commit.`,
            {
              fieldErrors: [{ field: `paths.${index}`, message: `inside the submodule ${submodule}` }],
              hints: [hint("Bash", "high", { command: `git -C ${shellQuote(submodule)} add -- ${shellQuote(inside)}` })],
            },
          ),
        )
      }
      const { ignored } = staged
      const sparse = staged.sparse ?? []
      // Staged all the same (git add stages what it is told): only the names `read` may not open are left out.
      const hidden = yield* gitHidden("git_add", repo)
      const { kept: changes, withheld } = splitHidden(hidden, staged.changes, (c) => [{ path: c.path, dir: false }])
      const report = withheldReport(hidden, withheld, "staged path")
      const files = changes.map((c) => c.path)
      const lines = changes.map((c) => `${c.change === "added" ? "A" : c.change === "deleted" ? "D" : "M"}  ${showPath(c.path)}`)
      const summary =
        changes.length === 0
          ? withheld.length === 0 ? "Nothing new to stage: the named paths match the index already." : "Staged:"
          : `Staged ${counted(changes.length, "file")}:`
      const skipped =
        ignored.length > 0 ? `\n\nSkipped (ignored by .gitignore, not staged): ${ignored.map(showPath).join(", ")}. Stage them only if the user asks, with Bash \`git add -f\`.` : ""
      const outside =
        sparse.length > 0
          ? `\n\nSkipped (outside the sparse-checkout definition, not staged): ${sparse.map(showPath).join(", ")}. Stage them only if the user asks, with Bash \`git add --sparse\`.`
          : ""
      const left = ignored.length + sparse.length > 0
      return {
        ...(left ? { status: "partial" as const } : {}),
        header: `GitAdd: ${given.join(", ")}`,
        data: { ok: true, files, changes, ...(ignored.length > 0 ? { ignored } : {}), ...(sparse.length > 0 ? { outside_sparse: sparse } : {}), ...report.data },
        text: `${summary}${lines.length > 0 ? `\n${lines.join("\n")}` : ""}${report.text === "" ? "" : `\n${report.text}`}${skipped}${outside}`,
        stats: { staged: changes.length + withheld.length },
        ...(left ? { hints: [hint("GitStatus", "medium", { short: true })] } : {}),
      }
    }))),
})
