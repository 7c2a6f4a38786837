import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatchHunk } from "diff"

/** A unified diff of one file and its size. */
export interface FileDiff {
  /** `---`/`+++`/`@@` unified diff; "" when nothing changed. Cut to the display limits when `truncated`. */
  readonly diff: string
  /** Lines added and removed (counted over the whole diff, also when the text is cut). */
  readonly additions: number
  readonly deletions: number
  /** Whether `diff` was shortened to the display limits. */
  readonly truncated: boolean
  /** Lines of the whole diff. */
  readonly totalLines: number
  /**
   * The whole diff when `diff` is cut, to be saved for the model (not built for a created file:
   * the file itself holds what was cut).
   */
  readonly whole?: string
  /** First changed line of the new text (1-based), when something changed. */
  readonly firstChangedLine?: number
}

export interface DiffOptions {
  /** Name on the `---` line, e.g. "a/src/x.ts", or "/dev/null" for a created file. */
  readonly oldName: string
  /** Name on the `+++` line. */
  readonly newName: string
  /** Context lines around each change. Default 3. */
  readonly context?: number
  /** Longest diff text kept, in lines and bytes; the counts stay exact. Default 400 lines, 40,000 bytes. */
  readonly maxLines?: number
  readonly maxBytes?: number
  /** Milliseconds the line diff may take before it falls back to one replace-everything hunk. Default 2000. */
  readonly timeoutMs?: number
}

const CHUNK = 4096

/** Length of the common prefix of a and b (at most `limit`), compared a block at a time. */
const commonPrefix = (a: string, b: string, limit: number): number => {
  let p = 0
  while (p + CHUNK <= limit && a.slice(p, p + CHUNK) === b.slice(p, p + CHUNK)) p += CHUNK
  while (p < limit && a.charCodeAt(p) === b.charCodeAt(p)) p++
  return p
}

/** Length of the common suffix of a and b (at most `limit`). */
const commonSuffix = (a: string, b: string, limit: number): number => {
  let s = 0
  while (s + CHUNK <= limit && a.slice(a.length - s - CHUNK, a.length - s) === b.slice(b.length - s - CHUNK, b.length - s)) s += CHUNK
  while (s < limit && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++
  return s
}

const countLines = (text: string, from: number, to: number): number => {
  let n = 0
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) n++
  return n
}

/** Start of the line `lines` lines above the line starting at `at`. */
const backLines = (text: string, at: number, lines: number): number => {
  let pos = at
  for (let k = 0; k < lines && pos > 0; k++) {
    const prev = text.lastIndexOf("\n", pos - 2)
    pos = prev + 1
  }
  return pos
}

/** Offset just past `lines` more line breaks from `at` (or the end). */
const forwardLines = (text: string, at: number, lines: number): number => {
  let pos = at
  for (let k = 0; k < lines && pos < text.length; k++) {
    const next = text.indexOf("\n", pos)
    pos = next === -1 ? text.length : next + 1
  }
  return pos
}

const splitLines = (text: string): Array<string> => {
  if (text === "") return []
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** One hunk replacing every old line by every new line: the fallback when the line diff would take too long. */
const wholeHunk = (before: string, after: string): StructuredPatchHunk => {
  const oldLines = splitLines(before)
  const newLines = splitLines(after)
  const lines = [...oldLines.map((l) => `-${l}`), ...newLines.map((l) => `+${l}`)]
  if (before !== "" && !before.endsWith("\n")) lines.splice(oldLines.length, 0, "\\ No newline at end of file")
  if (after !== "" && !after.endsWith("\n")) lines.push("\\ No newline at end of file")
  return {
    oldStart: oldLines.length === 0 ? 0 : 1,
    oldLines: oldLines.length,
    newStart: newLines.length === 0 ? 0 : 1,
    newLines: newLines.length,
    lines,
  }
}

/**
 * The unified diff between two texts (compare them with LF line breaks). Only
 * the changed window is handed to the line diff: the common prefix and suffix
 * lines are skipped (keeping `context` lines of them) and the hunk numbers are
 * shifted back, so a one-line edit of a 10 MB file costs a scan, not a diff of
 * the whole file.
 */
export const unifiedDiff = (before: string, after: string, options: DiffOptions): FileDiff => {
  if (before === after) return { diff: "", additions: 0, deletions: 0, truncated: false, totalLines: 0 }
  if (before === "" || after === "") return wholeFileDiff(before === "" ? after : before, before === "", options)
  const context = options.context ?? 3

  // First differing character, moved back to the start of its line.
  const limit = Math.min(before.length, after.length)
  const p = commonPrefix(before, after, limit)
  const prefixEnd = p === 0 ? 0 : before.lastIndexOf("\n", p - 1) + 1
  // Common suffix, not overlapping the prefix, then moved forward to a line start inside it.
  const s = commonSuffix(before, after, limit - prefixEnd)
  const suffixStartBefore = before.length - s
  const nl = s === 0 ? -1 : before.indexOf("\n", suffixStartBefore)
  const tailBefore = nl === -1 ? before.length : nl + 1
  const shift = after.length - before.length
  const tailAfter = tailBefore + shift

  const windowStart = backLines(before, prefixEnd, context)
  const windowEndBefore = forwardLines(before, tailBefore, context)
  const windowEndAfter = windowEndBefore + shift
  const skipped = countLines(before, 0, windowStart)
  const oldWindow = before.slice(windowStart, windowEndBefore)
  const newWindow = after.slice(windowStart, windowEndAfter)

  const patch = structuredPatch("", "", oldWindow, newWindow, undefined, undefined, {
    context,
    timeout: options.timeoutMs ?? 2000,
  })
  const hunks: Array<StructuredPatchHunk> = patch
    ? patch.hunks
    : (() => {
        // Too slow to diff line by line: one hunk over the changed window, context as plain lines.
        const lead = before.slice(windowStart, prefixEnd)
        const trail = before.slice(tailBefore, windowEndBefore)
        const hunk = wholeHunk(before.slice(prefixEnd, tailBefore), after.slice(prefixEnd, tailAfter))
        const leadLines = splitLines(lead).map((l) => ` ${l}`)
        const trailLines = splitLines(trail).map((l) => ` ${l}`)
        return [
          {
            oldStart: 1,
            oldLines: leadLines.length + hunk.oldLines + trailLines.length,
            newStart: 1,
            newLines: leadLines.length + hunk.newLines + trailLines.length,
            lines: [...leadLines, ...hunk.lines, ...trailLines],
          },
        ]
      })()
  const shifted = hunks.map((h) => ({
    ...h,
    oldStart: h.oldLines === 0 && h.oldStart === 0 ? skipped : h.oldStart + skipped,
    newStart: h.newLines === 0 && h.newStart === 0 ? skipped : h.newStart + skipped,
  }))

  let additions = 0
  let deletions = 0
  for (const h of shifted) {
    for (const line of h.lines) {
      if (line.startsWith("+")) additions++
      else if (line.startsWith("-")) deletions++
    }
  }
  const full = formatPatch(
    { oldFileName: options.oldName, newFileName: options.newName, oldHeader: undefined, newHeader: undefined, hunks: shifted },
    FILE_HEADERS_ONLY,
  )
  const first = shifted[0]
  const firstChangedLine = first ? firstChange(first) : undefined
  return { ...cap(full, options.maxLines ?? 400, options.maxBytes ?? 40_000), additions, deletions, ...(firstChangedLine ? { firstChangedLine } : {}) }
}

/**
 * The diff of a created (or emptied) file, built only as far as the display
 * limits reach: a 34 MB new file costs a line count, not a 34 MB diff text
 * (and the line diff's arrays, which took close to a gigabyte).
 */
const wholeFileDiff = (text: string, added: boolean, options: DiffOptions): FileDiff => {
  const maxLines = options.maxLines ?? 400
  const maxBytes = options.maxBytes ?? 40_000
  const noEol = !text.endsWith("\n")
  const n = countLines(text, 0, text.length) + (noEol ? 1 : 0)
  const lines = [`--- ${options.oldName}`, `+++ ${options.newName}`, added ? `@@ -0,0 +1,${n} @@` : `@@ -1,${n} +0,0 @@`]
  const totalLines = lines.length + n + (noEol ? 1 : 0)
  let bytes = lines.reduce((sum, l) => sum + Buffer.byteLength(l) + 1, 0)
  const sign = added ? "+" : "-"
  const fits = (line: string) => {
    const size = Buffer.byteLength(line) + 1
    if (lines.length >= maxLines || bytes + size > maxBytes) return false
    lines.push(line)
    bytes += size
    return true
  }
  let complete = true
  for (let pos = 0; pos < text.length; ) {
    const nl = text.indexOf("\n", pos)
    const end = nl === -1 ? text.length : nl
    if (!fits(sign + text.slice(pos, end))) {
      complete = false
      break
    }
    pos = end + 1
  }
  if (complete && noEol) complete = fits("\\ No newline at end of file")
  // An emptied file's cut lines exist nowhere else: its whole diff is built for saving.
  const whole =
    complete || added
      ? undefined
      : `${[...lines.slice(0, 3), ...text.replace(/\n$/, "").split("\n").map((l) => `-${l}`), ...(noEol ? ["\\ No newline at end of file"] : [])].join("\n")}\n`
  return {
    diff: `${lines.join("\n")}\n`,
    truncated: !complete,
    ...(whole !== undefined ? { whole } : {}),
    totalLines,
    additions: added ? n : 0,
    deletions: added ? 0 : n,
    firstChangedLine: 1,
  }
}

/** New-side line number of the first added or removed line of a hunk. */
const firstChange = (h: StructuredPatchHunk): number => {
  let line = h.newStart
  for (const l of h.lines) {
    if (l.startsWith("+") || l.startsWith("-")) return Math.max(1, line)
    if (l.startsWith(" ")) line++
  }
  return Math.max(1, h.newStart)
}

/** A diff line longer than this (minified code, a data line) is shown as a window of it. */
const LONG_LINE = 1000
const WINDOW = 300

/**
 * Over-long lines cut to a window: a removed or added line around where it
 * first differs from its counterpart in the same run of changes (the edit in
 * a minified file), any other from its start. Lines that fit stay as they are.
 */
const windowLongLines = (lines: ReadonlyArray<string>): Array<string> =>
  lines.map((l, i) => {
    if (l.length <= LONG_LINE || l.startsWith("--- ") || l.startsWith("+++ ")) return l
    const sign = l[0]!
    // The run of changes goes on over "\ No newline at end of file" notes.
    const inRun = (j: number) => j >= 0 && j < lines.length && "-+\\".includes(lines[j]![0] ?? " ")
    let other: string | undefined
    const wanted = sign === "-" ? "+" : sign === "+" ? "-" : undefined
    const step = sign === "-" ? 1 : -1
    if (wanted !== undefined) {
      for (let j = i + step; inRun(j); j += step) {
        if (lines[j]![0] === wanted) {
          other = lines[j]
          break
        }
      }
    }
    let at = 1
    if (other !== undefined) while (at < l.length && at < other.length && l[at] === other[at]) at++
    const from = Math.max(1, Math.min(at - 100, l.length - WINDOW))
    const to = Math.min(l.length, from + WINDOW)
    return `${sign}${from > 1 ? "…" : ""}${l.slice(from, to)}${to < l.length ? "…" : ""} [line cut: characters ${from}-${to - 1} of ${l.length - 1}]`
  })

/** Cuts a diff to whole lines within the limits (an over-long line to a window of it). */
const cap = (text: string, maxLines: number, maxBytes: number): Pick<FileDiff, "diff" | "truncated" | "totalLines" | "whole"> => {
  const body = text.endsWith("\n") ? text.slice(0, -1) : text
  const original = body.split("\n")
  const lines = windowLongLines(original)
  const totalLines = lines.length
  const kept: Array<string> = []
  let bytes = 0
  for (const line of lines) {
    if (kept.length >= maxLines) break
    const size = Buffer.byteLength(line) + 1
    if (bytes + size > maxBytes) {
      if (kept.length === 0) kept.push(`${line.slice(0, Math.max(0, maxBytes - 40))}… [line cut]`)
      break
    }
    kept.push(line)
    bytes += size
  }
  const truncated = kept.length < totalLines || kept.some((line, i) => line !== original[i])
  return { diff: kept.join("\n") + "\n", truncated, totalLines, ...(truncated ? { whole: text } : {}) }
}
