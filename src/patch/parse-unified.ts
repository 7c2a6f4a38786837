import { isEpochTimestamp, parseDiffGitNames, parseHeaderName, stripComponents, unquoteAt } from "./git-path.ts"
import type { FileOperation, FilePatch, Hunk, HunkLine, ParsedPatch } from "./model.ts"
import { PatchProblem, syntaxProblem } from "./patch-problem.ts"

export interface UnifiedOptions {
  /** `-p` level; undefined = auto-detect (a/ b/ prefixes, `diff -ru old new` folder names). */
  readonly strip?: number
}

const HUNK_HEADER = /^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@+(.*)$/
const DEV_NULL = "/dev/null"

interface MutableLine {
  kind: HunkLine["kind"]
  text: string
  cr: boolean
}

/**
 * Parses unified diffs as `git diff`, `git format-patch`, `diff -u`/`diff -ruN`
 * and hand-written patches produce them: one or many files, git's extended
 * headers (modes, new/deleted files, renames, copies, similarity/index lines),
 * quoted names, `\ No newline at end of file`, CRLF content. Hunk bodies are
 * trusted over the counts in their headers. Binary patches, submodules and
 * symbolic links are refused here, before anything is looked at on disk.
 * Throws {@link PatchProblem}.
 */
export const parseUnified = (text: string, options: UnifiedOptions = {}): ParsedPatch => {
  const raw = text.split("\n")
  if (raw.length > 0 && raw[raw.length - 1] === "") raw.pop()
  const lines = wholePatchIsCrlf(raw) ? raw.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)) : raw
  const head = (i: number): string => {
    const l = lines[i] ?? ""
    return l.endsWith("\r") ? l.slice(0, -1) : l
  }
  const files: Array<FilePatch> = []
  let sawGit = false
  let i = 0

  const isFileHeaderPair = (j: number) => head(j).startsWith("--- ") && head(j + 1).startsWith("+++ ")

  /** Hunks starting at `start`; returns them and the index after the last. */
  const parseHunks = (start: number, label: string): { hunks: Array<Hunk>; next: number } => {
    const hunks: Array<Hunk> = []
    let j = start
    while (j < lines.length && (head(j).startsWith("@@ ") || head(j) === "@@")) {
      const parsed = parseHunk(j, hunks.length + 1, label)
      hunks.push(parsed.hunk)
      j = parsed.next
    }
    return { hunks, next: j }
  }

  const parseHunk = (start: number, number: number, label: string): { hunk: Hunk; next: number } => {
    const header = head(start)
    const m = HUNK_HEADER.exec(header)
    if (!m && header !== "@@" && !/^@@ ?@@/.test(header)) {
      if (/^@@ -/.test(header)) throw syntaxProblem(start + 1, `malformed hunk header '${header}' in ${label} (expected '@@ -l,s +l,s @@').`)
    }
    const known = m !== null
    const oldStart = m ? Number(m[1]) : undefined
    const oldCount = m ? (m[2] === undefined ? 1 : Number(m[2])) : 0
    const newCount = m ? (m[4] === undefined ? 1 : Number(m[4])) : 0
    let remainingOld = oldCount
    let remainingNew = newCount
    const body: Array<MutableLine> = []
    let oldNoNewline = false
    let newNoNewline = false
    let j = start + 1
    for (; j < lines.length; j++) {
      const line = lines[j]!
      const countsDone = !known || (remainingOld <= 0 && remainingNew <= 0)
      if (line.startsWith("\\")) {
        const last = body[body.length - 1]
        if (!last) throw syntaxProblem(j + 1, `'\\ No newline at end of file' before any line of hunk ${number} in ${label}.`)
        if (last.cr) {
          last.text += "\r"
          last.cr = false
        }
        if (last.kind !== "+") oldNoNewline = true
        if (last.kind !== "-") newNoNewline = true
        continue
      }
      const c = line[0]
      if (c === " " || c === "-" || c === "+") {
        if (countsDone) {
          // Past the header's counts: more body lines mean the counts were wrong, but a
          // file header or a format-patch signature ("-- ") ends the hunk.
          if (isFileHeaderPair(j) || line === "-- " || line === "--") break
        } else if (isFileHeaderPair(j) && head(j + 2).startsWith("@@") && !(remainingOld === 1 && remainingNew === 1)) {
          // Counts too large: "--- x" / "+++ y" / "@@" is the next file, unless those two lines exactly finish the hunk.
          break
        }
        const cr = line.endsWith("\r")
        body.push({ kind: c, text: cr ? line.slice(1, -1) : line.slice(1), cr })
        if (c !== "+") remainingOld--
        if (c !== "-") remainingNew--
        continue
      }
      if ((line === "" || line === "\r") && (!countsDone || isBodyLine(lines[j + 1]))) {
        // An empty context line whose leading space was lost (mail, editors, models).
        body.push({ kind: " ", text: "", cr: line === "\r" })
        remainingOld--
        remainingNew--
        continue
      }
      break
    }
    if (body.length === 0) throw syntaxProblem(start + 1, `hunk ${number} in ${label} has no lines.`)
    if (body.every((l) => l.kind === " ")) {
      throw syntaxProblem(start + 1, `hunk ${number} in ${label} changes nothing (no '+' or '-' lines).`)
    }
    const oldLines = body.filter((l) => l.kind !== "+").length
    const newLines = body.filter((l) => l.kind !== "-").length
    const countsCorrected = known && (oldLines !== oldCount || newLines !== newCount)
    const hunk: Hunk = {
      number,
      header,
      ...(oldStart !== undefined ? { oldStart } : {}),
      lines: body.map((l) => ({ kind: l.kind, text: l.text, cr: l.cr })),
      oldNoNewline,
      newNoNewline,
      ...(countsCorrected ? { countsCorrected } : {}),
    }
    return { hunk, next: j }
  }

  const refuseSubmodule = (hunks: ReadonlyArray<Hunk>, label: string, line: number) => {
    if (hunks.length > 0 && hunks.every((h) => h.lines.every((l) => /^Subproject commit [0-9a-f]{7,}/.test(l.text)))) {
      throw submoduleProblem(label, line)
    }
  }

  while (i < lines.length) {
    const line = head(i)
    if (line.startsWith("diff --git ")) {
      sawGit = true
      const parsed = parseGitSection(i)
      files.push(parsed.file)
      i = parsed.next
      continue
    }
    if (isFileHeaderPair(i)) {
      const parsed = parsePlainSection(i)
      files.push(parsed.file)
      i = parsed.next
      continue
    }
    if (line.startsWith("***************") || (line.startsWith("*** ") && head(i + 1).startsWith("--- ") && /^\*\*\*/.test(head(i + 2)))) {
      throw syntaxProblem(i + 1, "this is a context diff (diff -c); only unified diffs (diff -u, git diff) are supported.")
    }
    if (line.startsWith("@@ -")) throw syntaxProblem(i + 1, "hunk found before any file header ('--- a/file' and '+++ b/file' lines).")
    if (/^Binary files .* differ$/.test(line)) throw binaryProblem(line.slice(13, -7), i + 1)
    // Anything else (commit messages, `diff -ruN` command lines, "Index:", "Only in") is commentary.
    i++
  }
  if (files.length === 0) {
    throw new PatchProblem("malformed", "The patch contains no file changes: expected 'diff --git' or '--- a/file' / '+++ b/file' headers followed by '@@' hunks, or a '*** Begin Patch' envelope.", { line: 1 })
  }
  return { format: sawGit ? "git" : "unified", files }

  function parsePlainSection(start: number): { file: FilePatch; next: number } {
    const oldH = parseHeaderName(head(start).slice(4))
    const newH = parseHeaderName(head(start + 1).slice(4))
    const label = `'${newH.name === DEV_NULL ? oldH.name : newH.name}'`
    const { hunks, next } = parseHunks(start + 2, label)
    if (hunks.length === 0) throw syntaxProblem(start + 3, `no '@@' hunk follows the file header of ${label}.`)
    refuseSubmodule(hunks, label, start + 1)
    const noOld = (h: Hunk) => h.lines.every((l) => l.kind === "+")
    const noNew = (h: Hunk) => h.lines.every((l) => l.kind === "-")
    const created = oldH.name === DEV_NULL || (isEpochTimestamp(oldH.timestamp) && hunks.every((h) => h.oldStart === 0 && noOld(h)))
    const deleted = newH.name === DEV_NULL || (isEpochTimestamp(newH.timestamp) && hunks.every(noNew) && hunks.every((h) => /\+0,0 @@/.test(h.header)))
    if (created && deleted) throw syntaxProblem(start + 1, `${label} is both created and deleted.`)
    const both = oldH.name !== DEV_NULL && newH.name !== DEV_NULL ? { a: oldH.name, b: newH.name } : undefined
    const names = stripPair(created ? undefined : oldH.name, deleted ? undefined : newH.name, start + 1, both)
    // Plain diffs cannot rename: `diff -u x.orig x` patches whichever of the two exists (the new name first).
    const operation: FileOperation = created ? "create" : deleted ? "delete" : "modify"
    return {
      file: {
        operation,
        ...(created ? {} : { oldPath: names.old!, rawOldPath: oldH.name }),
        ...(deleted ? {} : { newPath: names.new!, rawNewPath: newH.name }),
        hunks,
        line: start + 1,
        ...(names.auto ? { autoStrip: true } : {}),
      },
      next,
    }
  }

  function parseGitSection(start: number): { file: FilePatch; next: number } {
    const gitNames = parseDiffGitNames(head(start).slice("diff --git ".length))
    let oldMode: string | undefined
    let newMode: string | undefined
    let created = false
    let deleted = false
    let renameFrom: string | undefined
    let renameTo: string | undefined
    let copyFrom: string | undefined
    let copyTo: string | undefined
    let indexMode: string | undefined
    let oldName: string | undefined
    let newName: string | undefined
    let sawHeaders = false
    const label = gitNames ? `'${gitNames.b}'` : `the file at patch line ${start + 1}`
    const value = (l: string, prefix: string) => {
      const rest = l.slice(prefix.length)
      return rest.startsWith('"') ? (unquoteAt(rest, 0)?.name ?? rest) : rest
    }
    let j = start + 1
    for (; j < lines.length; j++) {
      const l = head(j)
      if (l.startsWith("old mode ")) oldMode = l.slice(9).trim()
      else if (l.startsWith("new mode ")) newMode = l.slice(9).trim()
      else if (l.startsWith("deleted file mode ")) {
        deleted = true
        oldMode = l.slice(18).trim()
      } else if (l.startsWith("new file mode ")) {
        created = true
        newMode = l.slice(14).trim()
      } else if (l.startsWith("rename from ")) renameFrom = value(l, "rename from ")
      else if (l.startsWith("rename to ")) renameTo = value(l, "rename to ")
      else if (l.startsWith("rename old ")) renameFrom = value(l, "rename old ")
      else if (l.startsWith("rename new ")) renameTo = value(l, "rename new ")
      else if (l.startsWith("copy from ")) copyFrom = value(l, "copy from ")
      else if (l.startsWith("copy to ")) copyTo = value(l, "copy to ")
      else if (l.startsWith("similarity index ") || l.startsWith("dissimilarity index ")) continue
      else if (l.startsWith("index ")) {
        const m = /^index [0-9a-f]+\.\.[0-9a-f]+(?: (\d{6}))?/.exec(l)
        if (m?.[1]) indexMode = m[1]
      } else if (l === "GIT binary patch" || /^Binary files .* differ$/.test(l)) {
        throw binaryProblem(gitNames?.b ?? label, j + 1)
      } else if (isFileHeaderPair(j)) {
        const o = parseHeaderName(l.slice(4)).name
        const n = parseHeaderName(head(j + 1).slice(4)).name
        oldName = o
        newName = n
        sawHeaders = true
        j += 2
        break
      } else break
    }
    for (const mode of [oldMode, newMode, indexMode]) {
      if (mode === "160000") throw submoduleProblem(gitNames?.b ?? label, start + 1)
      if (mode === "120000") {
        throw new PatchProblem("malformed", `Patch line ${start + 1}: ${gitNames?.b ?? label} is a symbolic link; patch does not create or change symbolic links. Nothing was changed.`, { line: start + 1 })
      }
    }
    const { hunks, next } = sawHeaders || head(j).startsWith("@@") ? parseHunks(j, label) : { hunks: [] as Array<Hunk>, next: j }
    if (sawHeaders && hunks.length === 0) throw syntaxProblem(j + 1, `no '@@' hunk follows the '---'/'+++' header of ${label}.`)
    refuseSubmodule(hunks, label, start + 1)
    if (oldName === DEV_NULL) created = true
    if (newName === DEV_NULL) deleted = true
    if (created && deleted) throw syntaxProblem(start + 1, `${label} is both created and deleted.`)

    // Paths: rename/copy lines are never prefixed; ---/+++ and `diff --git` names are.
    const fromHeaders = stripPair(
      created ? undefined : (oldName ?? gitNames?.a),
      deleted ? undefined : (newName ?? gitNames?.b),
      start + 1,
      gitNames,
    )
    const source = renameFrom ?? copyFrom ?? fromHeaders.old
    const target = renameTo ?? copyTo ?? fromHeaders.new
    if ((!created && source === undefined) || (!deleted && target === undefined)) {
      throw syntaxProblem(start + 1, `cannot tell the file names from '${head(start)}'.`)
    }
    const operation: FileOperation = created
      ? "create"
      : deleted
        ? "delete"
        : copyFrom !== undefined
          ? "copy"
          : renameFrom !== undefined || source !== target
            ? "rename"
            : hunks.length === 0 && oldMode !== undefined && newMode !== undefined
              ? "mode"
              : "modify"
    if (operation === "modify" && hunks.length === 0 && !(oldMode && newMode)) {
      // A bare `diff --git` header (e.g. an empty file whose mode line was lost) changes nothing.
      throw syntaxProblem(start + 1, `${label} has a 'diff --git' header but no change (no hunks, mode change, rename or copy).`)
    }
    const renamed = renameFrom !== undefined || copyFrom !== undefined
    return {
      file: {
        operation,
        ...(created ? {} : { oldPath: source!, ...(renamed ? {} : { rawOldPath: oldName ?? gitNames?.a ?? source! }) }),
        ...(deleted ? {} : { newPath: target!, ...(renamed ? {} : { rawNewPath: newName ?? gitNames?.b ?? target! }) }),
        ...(oldMode ? { oldMode } : indexMode && !created ? { oldMode: indexMode } : {}),
        ...(newMode ? { newMode } : indexMode && !deleted ? { newMode: indexMode } : {}),
        hunks,
        line: start + 1,
        ...(fromHeaders.auto && !renamed ? { autoStrip: true } : {}),
      },
      next,
    }
  }

  /**
   * Strips prefixes from an old/new name pair. With an explicit `strip` every
   * name loses that many components. Otherwise: `a/` + `b/` (or git's
   * mnemonic c/ i/ w/ o/) lose one; `diff -ru old new` names that differ only
   * in their first folder lose it; anything else is kept as written.
   */
  function stripPair(
    oldRaw: string | undefined,
    newRaw: string | undefined,
    line: number,
    reference?: { readonly a: string; readonly b: string },
  ): { old?: string; new?: string; auto: boolean } {
    const clean = (n: string | undefined) => (n === undefined || n === DEV_NULL ? undefined : n)
    const o = clean(oldRaw)
    const n = clean(newRaw)
    const strip = (name: string | undefined, level: number) => {
      if (name === undefined) return undefined
      const s = stripComponents(name, level)
      if (s === undefined) throw syntaxProblem(line, `cannot strip ${level} leading component(s) from '${name}' (strip=${level}).`)
      return s
    }
    if (options.strip !== undefined) return { old: strip(o, options.strip), new: strip(n, options.strip), auto: false }
    const refA = reference?.a ?? o
    const refB = reference?.b ?? n
    const prefixed = (a: string | undefined, b: string | undefined) =>
      (a === undefined || /^[aciow12]\//.test(a)) &&
      (b === undefined || /^[bciow12]\//.test(b)) &&
      (a === undefined || b === undefined || a[0] !== b[0])
    let level = 0
    if (refA !== undefined && refB !== undefined) {
      if (prefixed(refA, refB)) level = 1
      else if (refA !== refB && stripComponents(refA, 1) !== undefined && stripComponents(refA, 1) === stripComponents(refB, 1)) level = 1
    } else if ((o ?? n)?.includes("/") === true && prefixed(o, n)) level = 1
    return { old: strip(o, level), new: strip(n, level), auto: true }
  }
}

const isBodyLine = (line: string | undefined): boolean =>
  line !== undefined && (line.startsWith(" ") || ((line.startsWith("+") || line.startsWith("-")) && !line.startsWith("+++ ") && !line.startsWith("--- ")))

/** A patch produced on Windows (or pasted through CRLF) has "\r" on its header lines too; then every line loses one "\r". */
const wholePatchIsCrlf = (lines: ReadonlyArray<string>): boolean => {
  let headers = 0
  for (const l of lines) {
    if (l.startsWith("diff --git ") || l.startsWith("--- ") || l.startsWith("+++ ") || l.startsWith("@@ ")) {
      if (!l.endsWith("\r")) return false
      headers++
    }
  }
  return headers > 0
}

const binaryProblem = (name: string, line: number) =>
  new PatchProblem(
    "binary",
    `Patch line ${line}: ${name} is a binary change; patch applies text diffs only and refused the whole patch (nothing was changed). Write the file another way or drop it from the patch.`,
    { line },
  )

const submoduleProblem = (name: string, line: number) =>
  new PatchProblem(
    "malformed",
    `Patch line ${line}: ${name} is a submodule change; patch does not change submodules and refused the whole patch (nothing was changed). Use git in the submodule instead.`,
    { line },
  )
