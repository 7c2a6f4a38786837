import { Effect } from "effect"
import type { GitError } from "./git-error.ts"
import { unmergedStages } from "./index-file.ts"
import type { Repository } from "./repository.ts"
import { stagedRenames } from "./status.ts"
import { compareBytes, fileModeMatters, GITLINK, readBlobBytes, readSnapshot, type PathState } from "./tree-states.ts"
import { formatFileDiff, type DiffSide, type FileChange } from "./unified-diff.ts"

/** One file in a diff, as data. */
export interface ChangedFile {
  readonly path: string
  readonly old_path?: string
  /** added, modified, deleted, renamed, copied, typechange. */
  readonly status: string
  readonly additions: number
  readonly deletions: number
}

export interface DiffResult {
  /** The diff text, as `git diff` prints it. */
  readonly content: string
  readonly files: ReadonlyArray<ChangedFile>
  /** Paths with merge conflicts: left out of the diff (git would show a combined diff). */
  readonly unmerged: ReadonlyArray<string>
  /** Changes left out, with their patches, because `hides` hides a path they name (a submodule's as a folder). */
  readonly withheld: ReadonlyArray<{ readonly path: string; readonly dir: boolean }>
}

/** What a diff is asked for: staged or not, under which paths, with renames; `hides` leaves paths out of it. */
export interface DiffOptions {
  readonly staged: boolean
  readonly prefixes: ReadonlyArray<string>
  readonly renames: boolean
  /** diff.renames = copies: staged copies are found too (`--find-copies`). */
  readonly copies?: boolean | undefined
  readonly hides?: ((path: string, dir: boolean) => boolean) | undefined
}

const isLink = (mode: number) => (mode & 0o170000) === 0o120000

/** A submodule's side of a diff, as git prints it: "Subproject commit <id>", "-dirty" when its tree has changes. */
const subproject = (path: string, oid: string, dirty: boolean): DiffSide => ({
  path,
  oid,
  mode: GITLINK,
  bytes: new TextEncoder().encode(`Subproject commit ${oid}${dirty ? "-dirty" : ""}\n`),
  binary: false,
})

/**
 * Reads a working-tree file as git would store it (line endings converted as
 * core.autocrlf and the attributes ask; a symlink's target text for links).
 * `indexed` is the index's copy, which git consults under "auto".
 */
const readWorkFile = (repo: Repository, path: string, mode: number, indexed: string | undefined): Promise<Uint8Array> =>
  isLink(mode)
    ? repo.fs.promises.readlink(`${repo.dir}/${path}`).then((t) => new TextEncoder().encode(String(t)))
    : repo.fs.promises
        .readFile(`${repo.dir}/${path}`)
        .then((b) => repo.workTree().stored(path, new Uint8Array(b), () => (indexed ? readBlobBytes(repo, indexed) : Promise.resolve(undefined))))

/** A change whose two sides differ in type (file ↔ symlink) is shown by git as a deletion and an addition. */
const split = (change: FileChange): ReadonlyArray<FileChange> =>
  change.old && change.new && isLink(change.old.mode) !== isLink(change.new.mode) ? [{ old: change.old }, { new: change.new }] : [change]

const statusOf = (c: FileChange): string =>
  !c.old ? "added" : !c.new ? "deleted" : c.old.path !== c.new.path ? (c.copy === true ? "copied" : "renamed") : "modified"

/**
 * `git diff` (index → working tree) or `git diff --staged` (HEAD → index),
 * limited to `prefixes` when given. Staged renames are detected as git does.
 */
export const repositoryDiff = (repo: Repository, options: DiffOptions): Effect.Effect<DiffResult, GitError> =>
  Effect.gen(function* () {
    const fileMode = yield* repo.call("config", () => fileModeMatters(repo))
    const snapshot = yield* readSnapshot(repo, { workdir: !options.staged, prefixes: options.prefixes })
    return yield* repo.call("diff", async () => {
      const conflicts = unmergedStages(await repo.fs.promises.readFile(repo.indexFile).then((b) => new Uint8Array(b), () => new Uint8Array(0)))
      const under = (path: string) => options.prefixes.length === 0 || options.prefixes.some((p) => path === p || path.startsWith(`${p}/`))
      const hides = options.hides ?? (() => false)
      const withheld: Array<{ path: string; dir: boolean }> = []
      const unmerged: Array<string> = []
      for (const path of conflicts.keys()) {
        if (!under(path)) continue
        if (hides(path, false)) withheld.push({ path, dir: false })
        else unmerged.push(path)
      }
      unmerged.sort(compareBytes)
      const rules = repo.workTree()
      const binary = (path: string) => {
        const b = rules.diffBinary(path)
        return b === undefined ? {} : { binary: b }
      }
      const blob = (path: string, side: { oid: string; mode: number }): Promise<DiffSide> =>
        side.mode === GITLINK
          ? Promise.resolve(subproject(path, side.oid, false))
          : readBlobBytes(repo, side.oid).then((bytes): DiffSide => ({ path, oid: side.oid, mode: side.mode, bytes, ...binary(path) }))
      const sameContent = (a: { oid?: string; mode: number }, b: { oid?: string; mode: number }) =>
        a.oid === b.oid && (!fileMode || a.mode === b.mode)
      const changes: Array<FileChange> = []
      if (options.staged) {
        const renames = options.renames ? await stagedRenames(repo, snapshot.states, options.copies === true) : []
        const renamedFrom = new Set(renames.filter((r) => !r.copy).map((r) => r.from))
        const byPath = new Map(snapshot.states.map((s) => [s.path, s]))
        for (const r of renames) {
          const src = byPath.get(r.from)!.head!
          const dst = byPath.get(r.to)!.stage!
          changes.push({ old: await blob(r.from, src), new: await blob(r.to, dst), score: r.score, ...(r.copy ? { copy: true } : {}) })
        }
        const renamedTo = new Set(renames.map((r) => r.to))
        for (const s of snapshot.states) {
          if (renamedFrom.has(s.path) || renamedTo.has(s.path) || conflicts.has(s.path)) continue
          if (s.head && s.stage && sameContent(s.head, s.stage)) continue
          if (!s.head && !s.stage) continue
          changes.push({
            ...(s.head ? { old: await blob(s.path, s.head) } : {}),
            ...(s.stage ? { new: await blob(s.path, s.stage) } : {}),
          })
        }
      } else {
        for (const s of snapshot.states as ReadonlyArray<PathState>) {
          if (s.intentToAdd && s.workdir) {
            const bytes = await readWorkFile(repo, s.path, s.workdir.mode, undefined)
            changes.push({ new: { path: s.path, oid: s.workdir.oid ?? "", mode: s.workdir.mode, bytes, ...binary(s.path) } })
            continue
          }
          if (!s.stage || conflicts.has(s.path)) continue
          if (s.stage.mode === GITLINK) {
            // git diff shows a submodule's new commit, "-dirty" for modified content, nothing for untracked files alone.
            if (!s.workdir) changes.push({ old: await blob(s.path, s.stage) })
            else if (s.workdir.oid !== s.stage.oid || s.workdir.dirty?.modified) {
              changes.push({ old: await blob(s.path, s.stage), new: subproject(s.path, s.workdir.oid ?? s.stage.oid, s.workdir.dirty?.modified === true) })
            }
            continue
          }
          if (s.workdir && sameContent(s.stage, s.workdir)) continue
          const old = await blob(s.path, s.stage)
          if (!s.workdir) {
            changes.push({ old })
            continue
          }
          const bytes = await readWorkFile(repo, s.path, s.workdir.mode, s.stage.oid)
          // With core.filemode off the executable bit on disk means nothing: the index's mode stands.
          const mode = fileMode || isLink(s.workdir.mode) !== isLink(s.stage.mode) ? s.workdir.mode : s.stage.mode
          changes.push({ old, new: { path: s.path, oid: s.workdir.oid ?? "", mode, bytes, ...binary(s.path) } })
        }
      }
      const ordered = changes.flatMap(split).sort((a, b) => compareBytes((a.new ?? a.old)!.path, (b.new ?? b.old)!.path))
      const parts: Array<string> = []
      const files: Array<ChangedFile> = []
      for (const c of ordered) {
        const dir = c.old?.mode === GITLINK || c.new?.mode === GITLINK
        // Both names of a rename or copy are left out (and counted) when a rule hides either.
        const names = [...new Set([c.old?.path, c.new?.path].filter((p) => p !== undefined))]
        if (names.some((p) => hides(p, dir))) {
          withheld.push(...names.map((path) => ({ path, dir })))
          continue
        }
        const { text, stats } = formatFileDiff(c)
        parts.push(text)
        const old = c.old?.path
        const path = (c.new ?? c.old)!.path
        files.push({ path, ...(old !== undefined && old !== path ? { old_path: old } : {}), status: statusOf(c), ...stats })
      }
      return { content: parts.join("\n"), files, unmerged, withheld }
    })
  })
