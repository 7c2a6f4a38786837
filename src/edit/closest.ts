/**
 * When old_string matches nowhere, the places of the file that look most like
 * it, so the model can copy the real text in one step instead of guessing.
 * Similarity is by lines: each line of old_string against the line at the
 * same offset in a candidate region, on character bigrams with whitespace
 * collapsed.
 */

export interface Candidate {
  /** 1-based first and last line of the region. */
  readonly startLine: number
  readonly endLine: number
  /** 0..1, the mean line similarity. */
  readonly similarity: number
}

const collapse = (line: string) => line.trim().replace(/\s+/g, " ")

const bigrams = (s: string): Map<string, number> => {
  const out = new Map<string, number>()
  for (let i = 0; i + 1 < s.length; i++) {
    const g = s.slice(i, i + 2)
    out.set(g, (out.get(g) ?? 0) + 1)
  }
  return out
}

const overlap = (a: Map<string, number>, b: Map<string, number>): number => {
  let n = 0
  for (const [g, c] of a) n += Math.min(c, b.get(g) ?? 0)
  return n
}

/** Dice coefficient of two normalised lines (1 when equal, also when both are empty). */
const dice = (a: string, b: string, ga?: Map<string, number>): number => {
  if (a === b) return 1
  if (a.length < 2 || b.length < 2) return 0
  const A = ga ?? bigrams(a)
  const B = bigrams(b)
  return (2 * overlap(A, B)) / (a.length - 1 + b.length - 1)
}

/** Share of `a`'s bigrams found in `b`: how much of a one-line old_string a longer line contains. */
const containment = (a: string, b: string, ga: Map<string, number>): number => {
  if (b.includes(a)) return 1
  if (a.length < 2) return 0
  return overlap(ga, bigrams(b)) / (a.length - 1)
}

/**
 * The up-to-`max` regions of `fileLines` most similar to `needle` (LF text),
 * best first, not overlapping, each at least `minSimilarity` alike.
 */
export const closestRegions = (
  fileLines: ReadonlyArray<string>,
  needle: string,
  options: { readonly max?: number; readonly minSimilarity?: number } = {},
): Array<Candidate> => {
  const max = options.max ?? 3
  const min = options.minSimilarity ?? 0.3
  const oldLines = needle.split("\n")
  if (oldLines.length > 1 && oldLines[oldLines.length - 1] === "") oldLines.pop()
  const old = oldLines.map(collapse)
  const k = old.length
  const n = fileLines.length
  if (n === 0 || old.every((l) => l === "")) return []
  const norm = new Array<string | undefined>(n)
  const fileNorm = (j: number) => (norm[j] ??= collapse(fileLines[j]!))
  const grams = old.map((l) => bigrams(l))

  // Anchors: the (up to three) longest old lines. Every file line is scored
  // against them; the best hits suggest where a region would start.
  const anchors = old
    .map((l, i) => ({ l, i }))
    .filter((a) => a.l !== "")
    .sort((a, b) => b.l.length - a.l.length)
    .slice(0, 3)
  const single = k === 1
  const starts = new Map<number, number>()
  const PER_ANCHOR = 20
  for (const { l, i } of anchors) {
    const best: Array<{ s: number; score: number }> = []
    for (let j = 0; j < n; j++) {
      const f = fileNorm(j)
      if (f === "") continue
      // Cheap bound first: lines of very different length cannot be alike (one-line needles may sit inside longer lines).
      if (!single && (f.length > 3 * l.length + 8 || l.length > 3 * f.length + 8)) continue
      const score = single ? containment(l, f, grams[i]!) : dice(l, f, grams[i]!)
      if (score <= 0) continue
      if (best.length < PER_ANCHOR || score > best[best.length - 1]!.score) {
        best.push({ s: j - i, score })
        best.sort((a, b) => b.score - a.score)
        if (best.length > PER_ANCHOR) best.pop()
      }
    }
    for (const b of best) {
      const s = Math.max(0, Math.min(b.s, Math.max(0, n - k)))
      starts.set(s, Math.max(starts.get(s) ?? 0, b.score))
    }
  }

  const scored: Array<Candidate> = []
  for (const s of starts.keys()) {
    let total = 0
    let counted = 0
    for (let i = 0; i < k; i++) {
      const j = s + i
      if (j >= n) break
      const f = fileNorm(j)
      if (old[i] === "" && f === "") {
        total += 1
      } else {
        total += single ? containment(old[i]!, f, grams[i]!) : dice(old[i]!, f, grams[i]!)
      }
      counted++
    }
    const similarity = total / Math.max(k, 1)
    if (counted > 0) scored.push({ startLine: s + 1, endLine: Math.min(n, s + k), similarity })
  }
  scored.sort((a, b) => b.similarity - a.similarity || a.startLine - b.startLine)
  const picked: Array<Candidate> = []
  for (const c of scored) {
    if (c.similarity < min) break
    if (picked.some((p) => c.startLine <= p.endLine && p.startLine <= c.endLine)) continue
    picked.push(c)
    if (picked.length >= max) break
  }
  return picked
}

/**
 * File lines `startLine..endLine` (1-based) with `context` lines around them,
 * numbered as the read tool numbers them ("    12\t…"); long regions keep their
 * head and tail, long lines are cut.
 */
export const renderRegion = (
  fileLines: ReadonlyArray<string>,
  startLine: number,
  endLine: number,
  options: { readonly context?: number; readonly maxLines?: number; readonly maxWidth?: number } = {},
): string => {
  const context = options.context ?? 1
  const maxLines = options.maxLines ?? 30
  const maxWidth = options.maxWidth ?? 240
  const from = Math.max(1, startLine - context)
  const to = Math.min(fileLines.length, endLine + context)
  const numbered = (no: number) => {
    const line = fileLines[no - 1]!
    const shown = line.length > maxWidth ? `${line.slice(0, maxWidth)}… [${line.length - maxWidth} more characters]` : line
    return `${String(no).padStart(6)}\t${shown}`
  }
  const out: Array<string> = []
  const count = to - from + 1
  if (count <= maxLines) {
    for (let no = from; no <= to; no++) out.push(numbered(no))
  } else {
    const head = Math.ceil(maxLines / 2)
    const tail = maxLines - head
    for (let no = from; no < from + head; no++) out.push(numbered(no))
    out.push(`   ...\t(${count - maxLines} lines not shown)`)
    for (let no = to - tail + 1; no <= to; no++) out.push(numbered(no))
  }
  return out.join("\n")
}
