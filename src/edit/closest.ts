import { counted } from "../protocol/plural.ts"

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

/**
 * A line's character bigrams as a multiset, for scoring many other lines
 * against it: bigram code → slot, with per-slot counts. Scoring walks the
 * other line once, with no allocation per line.
 */
interface Profile {
  readonly text: string
  /** Open-addressing table: bigram code → slot (keys -1 when empty). */
  readonly keys: Int32Array
  readonly slots: Int32Array
  readonly mask: number
  /** 32 - log2(table size): the hash takes the product's top bits. */
  readonly shift: number
  readonly counts: Int32Array
  /** Number of bigrams (length - 1). */
  readonly size: number
  readonly used: Int32Array
  readonly stamp: Int32Array
}

let token = 0

const hash = (code: number, shift: number) => Math.imul(code, 0x9e3779b1) >>> shift

const find = (keys: Int32Array, mask: number, shift: number, code: number): number => {
  let h = hash(code, shift)
  while (keys[h] !== -1 && keys[h] !== code) h = (h + 1) & mask
  return h
}

const profile = (text: string): Profile => {
  let bits = 4
  while (1 << bits < text.length * 2) bits++
  const capacity = 1 << bits
  const mask = capacity - 1
  const shift = 32 - bits
  const keys = new Int32Array(capacity).fill(-1)
  const slots = new Int32Array(capacity)
  const counts: Array<number> = []
  for (let i = 0; i + 1 < text.length; i++) {
    const code = (text.charCodeAt(i) << 16) | text.charCodeAt(i + 1)
    const h = find(keys, mask, shift, code)
    if (keys[h] === -1) {
      keys[h] = code
      slots[h] = counts.length
      counts.push(1)
    } else counts[slots[h]!]!++
  }
  return {
    text,
    keys,
    slots,
    mask,
    shift,
    counts: Int32Array.from(counts),
    size: Math.max(0, text.length - 1),
    used: new Int32Array(counts.length),
    stamp: new Int32Array(counts.length),
  }
}

/** How many of the profile's bigrams (as a multiset) also occur in `b`. */
const overlap = (p: Profile, b: string): number => {
  const t = ++token
  const { keys, mask, shift } = p
  let n = 0
  let prev = b.charCodeAt(0)
  for (let i = 1; i < b.length; i++) {
    const next = b.charCodeAt(i)
    const code = (prev << 16) | next
    prev = next
    let h = hash(code, shift)
    while (keys[h] !== -1 && keys[h] !== code) h = (h + 1) & mask
    if (keys[h] === -1) continue
    const slot = p.slots[h]!
    if (p.stamp[slot] !== t) {
      p.stamp[slot] = t
      p.used[slot] = 0
    }
    if (p.used[slot]! < p.counts[slot]!) {
      p.used[slot]!++
      n++
    }
  }
  return n
}

/** Dice coefficient of two normalised lines (1 when equal). */
const dice = (p: Profile, b: string): number => {
  if (p.text === b) return 1
  if (p.text.length < 2 || b.length < 2) return 0
  return (2 * overlap(p, b)) / (p.size + b.length - 1)
}

/** Share of the profile's bigrams found in `b`: how much of a one-line old_string a longer line contains. */
const containment = (p: Profile, b: string): number => {
  if (b.includes(p.text)) return 1
  if (p.text.length < 2) return 0
  return overlap(p, b) / p.size
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
  const grams = old.map((l) => profile(l))

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
      const score = single ? containment(grams[i]!, f) : dice(grams[i]!, f)
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
        total += single ? containment(grams[i]!, f) : dice(grams[i]!, f)
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
    out.push(`   ...\t(${counted(count - maxLines, "line")} not shown)`)
    for (let no = to - tail + 1; no <= to; no++) out.push(numbered(no))
  }
  return out.join("\n")
}
