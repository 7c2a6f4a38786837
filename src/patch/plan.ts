import { lstatSync } from "node:fs"
import { Effect } from "effect"
import { sameBytes, type FileBefore, type FileChange } from "../workspace/file-transaction.ts"
import { closeQuietly, notWritable, notWritableWhy, readAllFd, stampOf } from "../workspace/checked-fs.ts"
import { openChecked } from "../workspace/checked-open.ts"
import { Workspace, type ResolvedPath } from "../workspace/workspace.ts"
import { applyToText } from "./apply.ts"
import { stripComponents } from "./git-path.ts"
import type { Tolerance } from "./locate-hunks.ts"
import { additionsOf, deletionsOf, type FileOperation, type FilePatch, type ParsedPatch } from "./model.ts"
import { PatchProblem } from "./patch-problem.ts"
import { decodeText } from "./text-lines.ts"
import { decodeText as decodeAnyText, encodable, encodeText, looksBinary, type TextFormat } from "../edit/text-encoding.ts"
import { PatchTargetError } from "./patch-target-error.ts"
import { refuseProtected } from "../sandbox/protected-write.ts"
import { counted } from "../protocol/plural.ts"

/** What the patch does to one file, as reported in `data.files`. */
export interface FileReport {
  readonly path: string
  readonly operation: FileOperation
  readonly old_path?: string
  readonly hunks: number
  readonly additions: number
  readonly deletions: number
  readonly old_mode?: string
  readonly new_mode?: string
  /** Hunks that matched only when whitespace or punctuation was compared loosely. */
  readonly fuzz?: ReadonlyArray<{ readonly hunk: number; readonly line: number; readonly tolerance: Exclude<Tolerance, "exact"> }>
  /** Hunks found away from the line their header named. */
  readonly offsets?: ReadonlyArray<{ readonly hunk: number; readonly expected_line: number; readonly line: number; readonly other_matches?: number }>
  /** Other names (hard links) of a changed file, which keep its old content (the new content is a file of its own). */
  readonly hard_links_kept_old?: number
}

export interface Plan {
  readonly reports: ReadonlyArray<FileReport>
  /** The net change per path (files touched twice by a patch appear once). */
  readonly changes: ReadonlyArray<FileChange>
}

export interface PlanOptions {
  /** Files larger than this are refused. */
  readonly maxFileBytes: number
}

interface Slot {
  readonly resolved: ResolvedPath
  readonly before: FileBefore | undefined
  /** An existing file this user may not write (see notWritable): its mode and owner, for the refusal. */
  readonly locked?: { readonly mode: number; readonly uid: number }
  /** Current content in the patch's virtual tree (undefined: absent). */
  current: { bytes: Uint8Array; mode: number } | undefined
  /** The file's names (hard links) when read; 0 when it did not exist. */
  readonly links: number
}

const DEFAULT_MODE = 0o644

/** A changed file's other names (hard links), which the commit leaves with the old content. */
const otherNames = (s: Slot, applied: { readonly bytes: Uint8Array } | undefined): { hard_links_kept_old?: number } =>
  s.links > 1 && applied !== undefined && s.before !== undefined && !sameBytes(applied.bytes, s.before.bytes) ? { hard_links_kept_old: s.links - 1 } : {}

/** Git's mode words on top of a file's permission bits: 100755 adds x where r is set, 100644 drops every x. */
const applyGitMode = (mode: number, git: string | undefined): number => {
  if (git === "100755") return mode | ((mode & 0o444) >> 2)
  if (git === "100644") return mode & ~0o111
  return mode
}

/**
 * Works out the whole patch in memory, reading but never writing: every path
 * through the sandbox, every file's new bytes and mode, in patch order (a
 * file touched twice sees the first change). Any problem fails here, before
 * anything is written.
 */
export const planPatch = (patch: ParsedPatch, options: PlanOptions) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const slots = new Map<string, Slot>()
    const reports: Array<FileReport> = []

    // Each name the patch uses is resolved once per plan: a file is looked up for a missing-prefix check and again
    // for its change, and a rename names its source twice.
    const resolvedNames = new Map<string, ResolvedPath>()
    const resolve = (p: string) =>
      Effect.gen(function* () {
        const known = resolvedNames.get(p)
        if (known) return known
        const resolved = yield* workspace.resolve(p, "patch")
        const parts = resolved.display.split("/")
        if (resolved.display === "." || parts.includes(".git")) {
          return yield* new PatchTargetError({
            kind: "refused",
            message: `Access denied: the patch names '${p}', ${resolved.display === "." ? "the project root itself" : "which is inside .git"}. Nothing was changed.`,
            refusedPath: p,
          })
        }
        yield* refuseProtected(resolved, "patch", " Nothing was changed.")
        resolvedNames.set(p, resolved)
        return resolved
      })

    const slot = (p: string) =>
      Effect.gen(function* () {
        const resolved = yield* resolve(p)
        const known = slots.get(resolved.real)
        if (known) return known
        // Read through a descriptor whose real place is checked: a link swapped in meanwhile cannot show outside bytes.
        const opened = yield* openChecked(workspace.contains, resolved.absolute, p, resolved.display, "patch")
        let before: FileBefore | undefined
        let locked: Slot["locked"]
        let links = 0
        if (opened !== undefined) {
          const { fd, stat: st } = opened
          try {
            // The file the error is about: what its next step looks at.
            const at = { path_resolved: resolved.display }
            if (st.isDirectory()) return yield* new PatchTargetError({ kind: "directory", message: `${resolved.display} is a directory, not a file. Nothing was changed.`, context: at })
            if (!st.isFile()) return yield* new PatchTargetError({ kind: "not_a_file", message: `${resolved.display} is not a regular file. Nothing was changed.`, context: at })
            const size = Number(st.size)
            if (size > options.maxFileBytes) {
              return yield* new PatchTargetError({
                kind: "too_large",
                message: `${resolved.display} is ${size} bytes, over the patch limit of ${options.maxFileBytes} bytes (tools.patch.max_file_bytes). Nothing was changed.`,
                context: at,
              })
            }
            const bytes = readAllFd(fd, size)
            before = { bytes, mode: Number(st.mode & 0o7777n), size: bytes.length, mtimeMs: Number(st.mtimeMs), stamp: stampOf(st) }
            links = Number(st.nlink)
            if (notWritable(fd, Number(st.mode))) locked = { mode: Number(st.mode), uid: Number(st.uid) }
          } finally {
            closeQuietly(fd)
          }
        }
        const s: Slot = { resolved, before, links, ...(locked ? { locked } : {}), current: before ? { bytes: before.bytes, mode: before.mode } : undefined }
        slots.set(resolved.real, s)
        return s
      })

    /** Whether a path exists in the virtual tree (without failing for paths outside the sandbox). */
    const existsQuietly = (p: string) =>
      slot(p).pipe(
        Effect.map((s) => s.current !== undefined),
        Effect.orElseSucceed(() => false),
      )

    const textOf = (s: Slot, fp: FilePatch): Effect.Effect<{ readonly text: string; readonly format?: TextFormat }, PatchTargetError> => {
      const bytes = s.current!.bytes
      const text = decodeText(bytes)
      if (text !== undefined) return Effect.succeed({ text })
      // UTF-16 with a byte-order mark and Latin-1 are read as edit reads them, and written back in the same form.
      const other = looksBinary(bytes) ? undefined : decodeAnyText(bytes)
      if (other?.ok === true && other.value.format.encoding !== "utf-8") return Effect.succeed({ text: other.value.text, format: other.value.format })
      return Effect.fail(
        new PatchTargetError({
          kind: "binary",
          message: looksBinary(bytes)
            ? `${s.resolved.display} is a binary file (a NUL byte in its first 64 KiB); patch changes text files only. Nothing was changed.`
            : `${s.resolved.display} is not valid text (${other?.ok === false ? other.reason : "not UTF-8"}); patch changes text files only. Nothing was changed.`,
          context: { path_resolved: s.resolved.display, patch_line: fp.line },
        }),
      )
    }

    const apply = (s: Slot | undefined, fp: FilePatch, shown: string) =>
      Effect.gen(function* () {
        const old = s ? yield* textOf(s, fp) : { text: "" }
        const applied = yield* Effect.try({
          try: () => applyToText(old.text, fp, shown),
          catch: (e) => (e instanceof PatchProblem ? e : new PatchProblem("internal", String(e))),
        })
        if (old.format !== undefined && !encodable(applied.text, old.format.encoding)) {
          return yield* new PatchTargetError({
            kind: "mismatch",
            message: `${shown} is ${old.format.encoding} text and the patch adds characters ${old.format.encoding} cannot hold. Nothing was changed.`,
            context: { path_resolved: shown, patch_line: fp.line },
          })
        }
        return { ...applied, bytes: old.format === undefined ? encode(applied.text) : encodeText(applied.text, old.format) }
      })

    for (const raw of patch.files) {
      const fp = yield* retargetIfMissing(raw, existsQuietly)
      const shownOld = fp.oldPath
      const shownNew = fp.newPath
      let report: FileReport
      const counts = { hunks: fp.hunks.length, additions: additionsOf(fp), deletions: deletionsOf(fp) }
      const modes = {
        ...(fp.oldMode && fp.newMode && fp.oldMode !== fp.newMode ? { old_mode: fp.oldMode, new_mode: fp.newMode } : {}),
        ...(fp.operation === "create" && fp.newMode ? { new_mode: fp.newMode } : {}),
      }

      const mustExist = (s: Slot, p: string) =>
        s.current === undefined
          ? Effect.fail(
              new PatchTargetError({
                kind: "missing",
                message: `${s.resolved.display} does not exist, but the patch (line ${fp.line}) expects to ${fp.operation === "delete" ? "delete" : fp.operation === "modify" ? "modify" : fp.operation === "mode" ? "change the mode of" : `${fp.operation} from`} it. Nothing was changed.`,
                hints: [{ action: "Glob", priority: "high", args: { pattern: `**/${p.split("/").pop()}` } }],
                context: { path_resolved: s.resolved.display },
              }),
            )
          : Effect.void
      // Slots are keyed by the real file, so removing one named through a link would delete or move the link's
      // target and leave the link dangling; a link itself is not patch's to remove (as it does not create them).
      const mustNotBeLink = (s: Slot) =>
        lstatSync(s.resolved.absolute, { throwIfNoEntry: false })?.isSymbolicLink()
          ? Effect.fail(
              new PatchTargetError({
                kind: "not_a_file",
                message: `${s.resolved.display} is a symbolic link; patch does not ${fp.operation === "delete" ? "delete" : "move"} symbolic links (doing it through the link would ${fp.operation === "delete" ? "delete" : "move"} the file it points to). Nothing was changed. Remove or move the link itself with Bash.`,
                context: { path_resolved: s.resolved.display },
              }),
            )
          : Effect.void
      const mustNotExist = (s: Slot) =>
        s.current !== undefined
          ? Effect.fail(
              new PatchTargetError({
                kind: "exists",
                message: `${s.resolved.display} already exists, but the patch (line ${fp.line}) ${fp.operation === "create" ? "creates" : `${fp.operation}s a file to`} it. Nothing was changed.`,
                hints: [{ action: "Read", priority: "high", args: { path: s.resolved.display } }],
                context: { path_resolved: s.resolved.display },
              }),
            )
          : Effect.void

      switch (fp.operation) {
        case "modify":
        case "mode": {
          // A plain `diff -u x.orig x` names two files: patch whichever exists, the new name first.
          let target = yield* slot(shownNew!)
          if (target.current === undefined && shownOld !== undefined && shownOld !== shownNew) {
            const alt = yield* slot(shownOld)
            if (alt.current !== undefined) target = alt
          }
          yield* mustExist(target, shownNew!)
          const applied = fp.hunks.length > 0 ? yield* apply(target, fp, target.resolved.display) : undefined
          target.current = {
            bytes: applied ? applied.bytes : target.current!.bytes,
            mode: applyGitMode(target.current!.mode, modes.new_mode),
          }
          report = { path: target.resolved.display, operation: fp.operation, ...counts, ...modes, ...placementsReport(applied), ...otherNames(target, applied) }
          break
        }
        case "create": {
          const target = yield* slot(shownNew!)
          yield* mustNotExist(target)
          const applied = yield* apply(undefined, fp, target.resolved.display)
          target.current = { bytes: applied.bytes, mode: applyGitMode(DEFAULT_MODE, fp.newMode) }
          report = { path: target.resolved.display, operation: "create", ...counts, ...modes, ...placementsReport(applied) }
          break
        }
        case "delete": {
          const target = yield* slot(shownOld!)
          yield* mustExist(target, shownOld!)
          yield* mustNotBeLink(target)
          if (fp.hunks.length > 0) {
            const applied = yield* apply(target, fp, target.resolved.display)
            if (applied.text !== "") {
              return yield* new PatchTargetError({
                kind: "mismatch",
                message: `${target.resolved.display}: the patch deletes the file but its removed lines do not cover the whole file (${counted(applied.text.split("\n").length, "line")} would remain). Nothing was changed.`,
                hints: [{ action: "Read", priority: "high", args: { path: target.resolved.display } }],
              })
            }
          } else if (!fp.beginPatch && target.current!.bytes.length > 0) {
            return yield* new PatchTargetError({
              kind: "mismatch",
              message: `${target.resolved.display}: the patch deletes an empty file, but the file has ${target.current!.bytes.length} bytes. Nothing was changed.`,
              context: { path_resolved: target.resolved.display },
            })
          }
          // A `*** Delete File` carries no lines: the lines it removes are the file's.
          const removed = fp.hunks.length === 0 ? lineCount(target.current!.bytes) : counts.deletions
          target.current = undefined
          report = { path: target.resolved.display, operation: "delete", ...counts, deletions: removed }
          break
        }
        case "rename":
        case "copy": {
          const source = yield* slot(shownOld!)
          yield* mustExist(source, shownOld!)
          if (fp.operation === "rename") yield* mustNotBeLink(source)
          const target = yield* slot(shownNew!)
          if (target !== source) yield* mustNotExist(target)
          const applied = fp.hunks.length > 0 ? yield* apply(source, fp, source.resolved.display) : undefined
          const next = {
            bytes: applied ? applied.bytes : source.current!.bytes,
            mode: applyGitMode(source.current!.mode, modes.new_mode),
          }
          if (fp.operation === "rename" && target !== source) source.current = undefined
          target.current = next
          report = {
            path: target.resolved.display,
            operation: fp.operation,
            old_path: source.resolved.display,
            ...counts,
            ...modes,
            ...placementsReport(applied),
            ...(fp.operation === "rename" ? otherNames(source, applied) : {}),
          }
          break
        }
      }
      reports.push(report)
    }

    const changes: Array<FileChange> = []
    for (const s of slots.values()) {
      const { before, current } = s
      if (before === undefined && current === undefined) continue
      if (before && current && before.mode === current.mode && sameBytes(before.bytes, current.bytes)) continue
      // A file made read-only is left alone, as write and edit leave it: changed, moved away or deleted alike.
      if (s.locked) {
        const why = notWritableWhy(s.resolved.display, s.locked.mode, s.locked.uid)
        return yield* new PatchTargetError({
          kind: "read_only",
          message: `${why.reason}, and the patch ${current === undefined ? "removes" : "changes"} it. Nothing was changed.${why.advice}`,
          hints: [{ action: "Bash", priority: "medium", args: { command: why.command } }],
          context: { path_resolved: s.resolved.display },
        })
      }
      changes.push({
        path: s.resolved.real,
        display: s.resolved.display,
        ...(before ? { before } : {}),
        ...(current ? { after: current } : {}),
      })
    }
    return { reports, changes }
  })

/**
 * Auto-detected prefixes can be wrong (a `diff -ru` of nested folders, a hand
 * written "project/src/x.ts"): when the file to change does not exist, try
 * dropping up to three more leading components, and take the first that does.
 */
const retargetIfMissing = <E, R>(fp: FilePatch, exists: (p: string) => Effect.Effect<boolean, E, R>): Effect.Effect<FilePatch, E, R> =>
  Effect.gen(function* () {
    if (!fp.autoStrip || fp.operation === "create" || fp.oldPath === undefined) return fp
    if (yield* exists(fp.oldPath)) return fp
    if (fp.newPath !== undefined && fp.newPath !== fp.oldPath && (yield* exists(fp.newPath))) return fp
    for (let extra = 1; extra <= 3; extra++) {
      const oldPath = stripComponents(fp.oldPath, extra)
      if (oldPath === undefined) break
      if (yield* exists(oldPath)) {
        const newPath = fp.newPath === undefined ? undefined : stripComponents(fp.newPath, extra)
        return { ...fp, oldPath, ...(newPath !== undefined ? { newPath } : {}) }
      }
    }
    return fp
  })

const placementsReport = (applied: { readonly placements: ReadonlyArray<import("./locate-hunks.ts").Placement> } | undefined) => {
  if (!applied) return {}
  const fuzz = applied.placements
    .filter((p) => p.tolerance !== "exact")
    .map((p) => ({ hunk: p.hunk.number, line: p.start + 1, tolerance: p.tolerance as Exclude<Tolerance, "exact"> }))
  const offsets = applied.placements
    .filter((p) => p.expectedLine !== undefined)
    .map((p) => ({ hunk: p.hunk.number, expected_line: p.expectedLine!, line: p.start + 1, ...(p.otherMatches ? { other_matches: p.otherMatches } : {}) }))
  return { ...(fuzz.length > 0 ? { fuzz } : {}), ...(offsets.length > 0 ? { offsets } : {}) }
}

/** Lines in a file's bytes, a last one without a newline included. */
const lineCount = (bytes: Uint8Array): number => {
  let n = 0
  for (const b of bytes) if (b === 10) n++
  return bytes.length > 0 && bytes[bytes.length - 1] !== 10 ? n + 1 : n
}

const encoder = new TextEncoder()
const encode = (text: string): Uint8Array => encoder.encode(text)
