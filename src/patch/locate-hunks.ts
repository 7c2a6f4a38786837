import type { Hunk } from "./model.ts"
import { PatchProblem } from "./patch-problem.ts"
import { counted } from "../protocol/plural.ts"

/**
 * How loosely a hunk's old lines had to be compared to find them: exactly,
 * ignoring trailing whitespace, ignoring all leading/trailing whitespace and
 * runs of blanks, or also treating look-alike Unicode punctuation (curly
 * quotes, dashes, non-breaking spaces) as ASCII.
 */
export type Tolerance = "exact" | "trailing_whitespace" | "whitespace" | "punctuation"

const LEVELS: ReadonlyArray<Tolerance> = ["exact", "trailing_whitespace", "whitespace", "punctuation"]

/** Where one hunk goes in the old file. */
export interface Placement {
  readonly hunk: Hunk
  /** 0-based index of the first old line the hunk covers (the insertion point when it covers none). */
  readonly start: number
  /** How many old lines it covers (context + removed). */
  readonly length: number
  readonly tolerance: Tolerance
  /** 1-based line the header named, when it named one and the hunk landed elsewhere. */
  readonly expectedLine?: number
  /** For a relocated hunk: how many other places its lines match as well (the nearest one was taken). */
  readonly otherMatches?: number
}

/** The old file's lines, read on demand (a large file is not split up front). */
export interface LineSource {
  readonly count: number
  readonly line: (i: number) => string
}

export interface LocateOptions {
  /** The file as the patch names it, for messages. */
  readonly path: string
  /** The loosest comparison allowed (default "punctuation": every level). */
  readonly maxFuzz?: Tolerance
}

const normalizers: Record<Tolerance, (s: string) => string> = {
  exact: (s) => s,
  trailing_whitespace: (s) => s.trimEnd(),
  whitespace: (s) => s.trim().replace(/\s+/g, " "),
  punctuation: (s) =>
    s
      .normalize("NFC")
      .replace(/[\u2010-\u2015\u2212]/g, "-")
      .replace(/[\u2018\u2019\u201A\u201B]/g, "'")
      .replace(/[\u201C\u201D\u201E\u201F]/g, '"')
      .replace(/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, " ")
      .replace(/\u2026/g, "...")
      .trim()
      .replace(/\s+/g, " "),
}

/**
 * Finds where each hunk of one file applies, by its context and removed lines:
 *
 * 1. at the line its header names, shifted by how far earlier hunks moved;
 * 2. else the nearest exact match searching outward from there (hunks without
 *    line numbers search forward from the previous hunk first); a match may
 *    not overlap another hunk's;
 * 3. else the same with growing whitespace tolerance (reported per hunk).
 *
 * Wrong line numbers and wrong counts in headers therefore do no harm. A hunk
 * that fits nowhere is a CONFLICT naming the file, the hunk and the first line
 * that differs at the closest place. Throws PatchProblem.
 */
export const locateHunks = (source: LineSource, hunks: ReadonlyArray<Hunk>, options: LocateOptions): ReadonlyArray<Placement> => {
  const n = source.count
  // Whole-file arrays are built only when a hunk needs them (an anchor, a loose match, an error message).
  const normalized = new Map<Tolerance, ReadonlyArray<string>>()
  const fileAt = (level: Tolerance): ReadonlyArray<string> => {
    let arr = normalized.get(level)
    if (!arr) {
      const exact = normalized.get("exact") ?? Array.from({ length: n }, (_, i) => source.line(i))
      normalized.set("exact", exact)
      const f = normalizers[level]
      arr = level === "exact" ? exact : exact.map(f)
      normalized.set(level, arr)
    }
    return arr
  }
  const exactLine = (i: number) => normalized.get("exact")?.[i] ?? source.line(i)
  const maxLevel = LEVELS.indexOf(options.maxFuzz ?? "punctuation")
  const placed: Array<Placement> = []
  let delta = 0
  let cursor = 0

  const overlaps = (start: number, length: number) =>
    placed.some((p) => {
      if (length === 0) return start > p.start && start < p.start + p.length
      if (p.length === 0) return p.start > start && p.start < start + length
      return start < p.start + p.length && p.start < start + length
    })

  for (const hunk of hunks) {
    const old = hunk.lines.filter((l) => l.kind !== "+").map((l) => l.text)
    const m = old.length
    const mustEnd = hunk.oldNoNewline || hunk.newNoNewline
    let hint: number
    let forward = false
    if (hunk.anchors && hunk.anchors.length > 0) {
      for (const anchor of hunk.anchors) cursor = findAnchor(anchor, cursor, options.path, hunk, fileAt) + 1
      hint = cursor
      forward = true
    } else if (hunk.oldStart !== undefined) {
      // "-5,0" inserts after line 5; "-5,3" starts at line 5.
      hint = Math.max(0, (m === 0 ? hunk.oldStart : hunk.oldStart - 1) + delta)
    } else {
      hint = cursor
      forward = true
    }
    if (hunk.atEnd || mustEnd) hint = n - m

    if (m === 0) {
      // Pure insertion: nothing to match. Without a position, the end of the file (or right after the anchor).
      const at = hunk.oldStart !== undefined || (hunk.anchors && hunk.anchors.length > 0) ? Math.min(Math.max(hint, 0), n) : n
      placed.push({ hunk, start: at, length: 0, tolerance: "exact" })
      cursor = at
      continue
    }

    let found: { start: number; level: Tolerance; others: (start: number) => number } | undefined
    for (let li = 0; li <= maxLevel && !found; li++) {
      const level = LEVELS[li]!
      const norm = normalizers[level]
      const want = old.map(norm)
      const at = level === "exact" ? exactLine : ((file) => (i: number) => file[i])(fileAt(level))
      const matchesAt = (p: number) => {
        if (p < 0 || p + m > n) return false
        if (mustEnd && p + m !== n) return false
        for (let k = 0; k < m; k++) if (at(p + k) !== want[k]) return false
        return !overlaps(p, m)
      }
      const start = search(hint, n - m, forward, matchesAt)
      const others = (taken: number) => {
        let count = 0
        for (let p = 0; p + m <= n && count < 99; p++) if (p !== taken && matchesAt(p)) count++
        return count
      }
      if (start !== undefined) found = { start, level, others }
    }
    if (!found) throw mismatch(fileAt("exact"), old, hunk, hint, options.path, mustEnd)
    const expected = hunk.oldStart !== undefined && !hunk.anchors ? Math.max(0, hunk.oldStart - 1) : undefined
    const relocated = expected !== undefined && found.start !== expected
    const otherMatches = relocated ? found.others(found.start) : 0
    placed.push({
      hunk,
      start: found.start,
      length: m,
      tolerance: found.level,
      ...(relocated ? { expectedLine: expected + 1 } : {}),
      ...(otherMatches > 0 ? { otherMatches } : {}),
    })
    if (expected !== undefined) delta = found.start - expected
    cursor = found.start + m
  }
  return [...placed].sort((a, b) => a.start - b.start || a.hunk.number - b.hunk.number)
}

/** The nearest position in [0, last] satisfying `ok`: outward from `hint`, or forward first then backward. */
const search = (hint: number, last: number, forward: boolean, ok: (p: number) => boolean): number | undefined => {
  if (last < 0) return undefined
  const h = Math.min(Math.max(hint, 0), last)
  if (ok(h)) return h
  if (forward) {
    for (let p = h + 1; p <= last; p++) if (ok(p)) return p
    for (let p = h - 1; p >= 0; p--) if (ok(p)) return p
    return undefined
  }
  for (let d = 1; h + d <= last || h - d >= 0; d++) {
    if (h + d <= last && ok(h + d)) return h + d
    if (h - d >= 0 && ok(h - d)) return h - d
  }
  return undefined
}

const findAnchor = (
  anchor: string,
  from: number,
  path: string,
  hunk: Hunk,
  fileAt: (level: Tolerance) => ReadonlyArray<string>,
): number => {
  for (const level of LEVELS) {
    const want = normalizers[level](anchor)
    const file = fileAt(level)
    for (let p = from; p < file.length; p++) if (file[p] === want) return p
  }
  throw new PatchProblem(
    "does_not_apply",
    `Hunk ${hunk.number} of ${path} (${hunk.header}): the anchor line "${anchor}" was not found${from > 0 ? ` after line ${from}` : ""}. Nothing was changed.`,
    { path, fileLine: from + 1 },
  )
}

const show = (s: string | undefined) => (s === undefined ? "(end of file)" : JSON.stringify(s))

/** The CONFLICT for a hunk that fits nowhere: the closest place and its first differing line. */
const mismatch = (lines: ReadonlyArray<string>, old: ReadonlyArray<string>, hunk: Hunk, hint: number, path: string, mustEnd: boolean): PatchProblem => {
  const n = lines.length
  const m = old.length
  const label = `Hunk ${hunk.number} of ${path} (${hunk.header})`
  const loose = (s: string) => s.trim()
  const wantLoose = old.map(loose)
  // Closest place: most lines equal (whitespace-insensitive), nearest to the hint on ties; bounded work.
  const budget = 2_000_000
  const radius = Math.max(50, Math.floor(budget / Math.max(1, m)))
  const from = Math.max(0, Math.min(hint, n) - radius)
  const to = Math.min(Math.max(0, n - 1), hint + radius)
  let best = -1
  let bestScore = 0
  for (let p = from; p <= to; p++) {
    let score = 0
    for (let k = 0; k < m && p + k < n; k++) if (loose(lines[p + k]!) === wantLoose[k]) score++
    if (score > bestScore || (score === bestScore && score > 0 && Math.abs(p - hint) < Math.abs(best - hint))) {
      best = p
      bestScore = score
    }
  }
  if (best < 0) {
    const where = n === 0 ? "the file is empty" : `none of its ${counted(m, "context/removed line")} match the file near line ${Math.min(hint, n) + 1}`
    return new PatchProblem("does_not_apply", `${label} does not apply: ${where}. The patch expects ${show(old[0])} first. Nothing was changed.`, {
      path,
      fileLine: Math.min(hint, Math.max(n - 1, 0)) + 1,
      details: excerpt(lines, old, Math.min(hint, Math.max(0, n - m)), m),
    })
  }
  // The first line that really differs (ignoring whitespace), else the first that differs at all.
  let k = 0
  while (k < m && best + k < n && loose(lines[best + k]!) === wantLoose[k]) k++
  if (k === m) {
    k = 0
    while (k < m && best + k < n && lines[best + k] === old[k]) k++
  }
  let reason: string
  if (k === m && mustEnd) reason = `its lines are found at line ${best + 1} but the patch says they end the file (it has ${counted(n, "line")})`
  else if (k === m) reason = `its lines at line ${best + 1} are already claimed by another hunk`
  else if (best + k >= n) reason = `the file ends at line ${n}, where the patch still expects ${show(old[k])}`
  else if (loose(lines[best + k]!) === wantLoose[k]) {
    reason = `line ${best + k + 1} differs in whitespace or punctuation: the patch expects ${show(old[k])}, the file has ${show(lines[best + k])}`
  } else reason = `at line ${best + k + 1} the patch expects ${show(old[k])} but the file has ${show(lines[best + k])}`
  return new PatchProblem("does_not_apply", `${label} does not apply: ${reason} (closest match: ${bestScore} of ${counted(m, "line")}). Nothing was changed.`, {
    path,
    fileLine: best + k + 1,
    details: excerpt(lines, old, best, m),
  })
}

/** Expected lines beside the file's lines at `at`, for the error text. */
const excerpt = (lines: ReadonlyArray<string>, old: ReadonlyArray<string>, at: number, m: number): string => {
  const max = 12
  const expected = old.slice(0, max).map((l) => `  ${l}`)
  const actual = lines.slice(at, at + Math.min(m, max)).map((l, k) => `${String(at + k + 1).padStart(6)}  ${l}`)
  return [
    `Expected (from the patch):`,
    ...expected,
    ...(m > max ? [`  … ${m - max} more`] : []),
    `Found in the file at line ${at + 1}:`,
    ...(actual.length > 0 ? actual : ["  (nothing: end of file)"]),
  ].join("\n")
}
