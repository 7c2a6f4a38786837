/**
 * Rename detection as git does it (diffcore-rename.c and diffcore-delta.c):
 * exact renames by blob id first, then pairs whose content similarity reaches
 * 50%, best score first. Similarity counts the bytes of 64-byte (or
 * newline-ended) chunks the two files share, over the larger file's size.
 */
import { compareBytes } from "./tree-states.ts"

/** git's MAX_SCORE: a score of 60000 is 100% similar. */
export const MAX_SCORE = 60000
/** git's default minimum rename score (-M50%). */
export const MIN_RENAME_SCORE = 30000
/** git's default diff.renameLimit: beyond sources × destinations > limit², only exact renames are found. */
const RENAME_LIMIT = 1000
const HASHBASE = 107927

/** Whether git would call the content binary: a NUL byte within the first 8000 bytes. */
export const isBinary = (bytes: Uint8Array): boolean => bytes.subarray(0, 8000).includes(0)

/** The chunk histogram of diffcore-delta's hash_chars: chunk hash → bytes. */
export const spanHashes = (bytes: Uint8Array): Map<number, number> => {
  const text = !isBinary(bytes)
  const counts = new Map<number, number>()
  const add = (a1: number, a2: number, n: number) => {
    const hash = ((a1 + Math.imul(a2, 0x61)) >>> 0) % HASHBASE
    counts.set(hash, (counts.get(hash) ?? 0) + n)
  }
  let accum1 = 0
  let accum2 = 0
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!
    // A CR of a CRLF pair does not count in text.
    if (text && c === 13 && i + 1 < bytes.length && bytes[i + 1] === 10) continue
    const old1 = accum1
    accum1 = ((accum1 << 7) ^ (accum2 >>> 25)) >>> 0
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0
    accum1 = (accum1 + c) >>> 0
    if (++n < 64 && c !== 10) continue
    add(accum1, accum2, n)
    n = 0
    accum1 = accum2 = 0
  }
  if (n > 0) add(accum1, accum2, n)
  return counts
}

/** estimate_similarity: 0..MAX_SCORE, 0 when the sizes alone rule a rename out. */
export const similarityScore = (
  src: { readonly size: number; readonly hashes: Map<number, number> },
  dst: { readonly size: number; readonly hashes: Map<number, number> },
  minScore = MIN_RENAME_SCORE,
): number => {
  const max = Math.max(src.size, dst.size)
  const base = Math.min(src.size, dst.size)
  if (max * (MAX_SCORE - minScore) < (max - base) * MAX_SCORE) return 0
  if (max === 0) return 0
  let copied = 0
  for (const [hash, srcCount] of src.hashes) {
    const dstCount = dst.hashes.get(hash) ?? 0
    copied += Math.min(srcCount, dstCount)
  }
  return Math.floor((copied * MAX_SCORE) / max)
}

/** A side of a possible rename: a path and its blob. */
export interface RenameCandidate {
  readonly path: string
  readonly oid: string
  /** Regular files only take part in inexact matching (as in git). */
  readonly regular: boolean
  /** A modified file, still there (a source of copies only): git counts it as one use of itself. */
  readonly kept?: boolean
}

export interface RenamePair {
  readonly from: string
  readonly to: string
  /** 0..MAX_SCORE; MAX_SCORE for an exact rename. */
  readonly score: number
  /** A copy: the source stays (it is kept, or another destination takes it as its rename). */
  readonly copy: boolean
}

const basename = (p: string) => p.slice(p.lastIndexOf("/") + 1)

/**
 * Pairs deleted paths with added paths. `load` reads a blob's bytes (only
 * called when an inexact comparison is needed). With `copies` (diff.renames =
 * copies) a source may serve several destinations and modified files are
 * sources too, as git's -C: a pass for renames, then one for copies; of the
 * destinations of a deleted source, the last in path order is its rename and
 * the others copies, and every pair from a kept source is a copy.
 */
export const findRenames = async (
  sources: ReadonlyArray<RenameCandidate>,
  destinations: ReadonlyArray<RenameCandidate>,
  load: (oid: string) => Promise<Uint8Array>,
  copies = false,
): Promise<ReadonlyArray<RenamePair>> => {
  const matched: Array<{ i: number; j: number; score: number }> = []
  const uses = sources.map((s) => (s.kept === true ? 1 : 0))
  const doneDst = new Set<number>()
  const record = (i: number, j: number, score: number) => {
    uses[i]!++
    doneDst.add(j)
    matched.push({ i, j, score })
  }
  // Exact renames: same blob. A source not used yet, then one with the same basename, is preferred.
  const bySrcOid = new Map<string, Array<number>>()
  sources.forEach((s, i) => bySrcOid.set(s.oid, [...(bySrcOid.get(s.oid) ?? []), i]))
  destinations.forEach((d, j) => {
    const candidates = (bySrcOid.get(d.oid) ?? []).filter((i) => copies || uses[i] === 0)
    if (candidates.length === 0) return
    const rank = (i: number) => (uses[i] === 0 ? 2 : 0) + (basename(sources[i]!.path) === basename(d.path) ? 1 : 0)
    const i = candidates.reduce((best, c) => (rank(c) > rank(best) ? c : best), candidates[0]!)
    record(i, j, MAX_SCORE)
  })

  // Without copies only sources not used yet can be renamed: those are all that need reading.
  const srcLeft = sources.map((s, i) => ({ s, i })).filter(({ s, i }) => s.regular && (copies || uses[i] === 0))
  const dstLeft = destinations.map((d, j) => ({ d, j })).filter(({ d, j }) => !doneDst.has(j) && d.regular)
  if (srcLeft.length > 0 && dstLeft.length > 0 && srcLeft.length * dstLeft.length <= RENAME_LIMIT * RENAME_LIMIT) {
    const loaded = new Map<string, { size: number; hashes: Map<number, number> }>()
    const info = async (oid: string) => {
      let found = loaded.get(oid)
      if (!found) {
        const bytes = await load(oid)
        found = { size: bytes.length, hashes: spanHashes(bytes) }
        loaded.set(oid, found)
      }
      return found
    }
    const scored: Array<{ i: number; j: number; score: number; nameScore: number }> = []
    for (const { d, j } of dstLeft) {
      const dst = await info(d.oid)
      for (const { s, i } of srcLeft) {
        const score = similarityScore(await info(s.oid), dst)
        if (score >= MIN_RENAME_SCORE) scored.push({ i, j, score, nameScore: basename(s.path) === basename(d.path) ? 1 : 0 })
      }
    }
    scored.sort((a, b) => b.score - a.score || b.nameScore - a.nameScore || a.j - b.j || a.i - b.i)
    // Renames first (each source once, a kept one never), then copies from any source.
    for (const pass of copies ? [false, true] : [false]) {
      for (const m of scored) {
        if (doneDst.has(m.j) || (!pass && uses[m.i] !== 0)) continue
        record(m.i, m.j, m.score)
      }
    }
  }
  // In destination path order each pair takes one use of its source: the last use of a deleted one is the rename.
  matched.sort((a, b) => compareBytes(destinations[a.j]!.path, destinations[b.j]!.path))
  return matched.map(({ i, j, score }) => ({ from: sources[i]!.path, to: destinations[j]!.path, score, copy: --uses[i]! > 0 }))
}
