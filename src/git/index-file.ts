import { isUtf8 } from "../workspace/path-bytes.ts"

/** What the index file records of its entries beyond what isomorphic-git's walkers show. */
export interface IndexMarks {
  /** path → the conflict stages (1 base, 2 ours, 3 theirs) present for it; only unmerged paths appear. */
  readonly unmerged: ReadonlyMap<string, ReadonlySet<number>>
  /** Entries outside a sparse checkout (skip-worktree): git takes their work-tree file as unchanged, absent or not. */
  readonly skipWorktree: ReadonlySet<string>
  /** Entries added with `git add -N` (intent-to-add): tracked, yet nothing of them is staged. */
  readonly intentToAdd: ReadonlySet<string>
  /** Entries marked assume-unchanged (`git update-index --assume-unchanged`): git never looks at their work-tree file. */
  readonly assumeUnchanged: ReadonlySet<string>
  /** How many entries the index holds (conflict stages each count). */
  readonly entries: number
}

/** One entry of an index file as {@link eachIndexEntry} visits it. */
interface RawIndexEntry {
  /** The path's bytes (UTF-8 for names git wrote from UTF-8). */
  readonly path: Uint8Array
  readonly stage: number
  /** The assume-valid flag (0x8000): `git update-index --assume-unchanged`. */
  readonly assumeValid: boolean
  /** The extended flags (version 3 and up): skip-worktree 0x4000, intent-to-add 0x2000. */
  readonly extended: number
  /** Where the entry starts in the file (its object id is 40 bytes in). */
  readonly start: number
}

/**
 * Visits the entries of a git index file (.git/index, versions 2-4) until
 * `visit` returns true; returns how many the file holds (0 when it is not an
 * index file).
 */
const eachIndexEntry = (bytes: Uint8Array, visit: (entry: RawIndexEntry) => boolean | void): number => {
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== "DIRC") return 0
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const version = view.getUint32(4)
  const count = view.getUint32(8)
  if (version < 2 || version > 4) return 0
  let at = 12
  let previous: Uint8Array<ArrayBufferLike> = new Uint8Array(0)
  for (let i = 0; i < count && at + 62 <= bytes.length; i++) {
    const start = at
    const flags = view.getUint16(at + 60)
    at += 62
    let extended = 0
    if (version >= 3 && flags & 0x4000) {
      extended = view.getUint16(at)
      at += 2
    }
    let path: Uint8Array<ArrayBufferLike>
    if (version === 4) {
      // Prefix compression: drop N bytes of the previous path, then a NUL-terminated suffix.
      let strip = 0
      let b: number
      do {
        b = bytes[at++]!
        strip = (strip << 7) | (b & 0x7f)
        if (b & 0x80) strip += 1
      } while (b & 0x80)
      const end = bytes.indexOf(0, at)
      const suffix = bytes.subarray(at, end)
      const kept = previous.subarray(0, previous.length - strip)
      path = new Uint8Array(kept.length + suffix.length)
      path.set(kept)
      path.set(suffix, kept.length)
      at = end + 1
    } else {
      const end = bytes.indexOf(0, at)
      path = bytes.subarray(at, end)
      // Entries are padded with NULs to a multiple of 8 bytes (at least one NUL).
      at = start + Math.ceil((end - start + 1) / 8) * 8
    }
    previous = path
    if (visit({ path, stage: (flags >> 12) & 3, assumeValid: (flags & 0x8000) !== 0, extended, start }) === true) break
  }
  return count
}

/**
 * Reads a git index file for what isomorphic-git leaves out: conflict stages
 * (its walkers show one entry per path) and the extended flags skip-worktree
 * and intent-to-add.
 */
export const indexMarks = (bytes: Uint8Array): IndexMarks => {
  const out = new Map<string, Set<number>>()
  const skipWorktree = new Set<string>()
  const intentToAdd = new Set<string>()
  const assumeUnchanged = new Set<string>()
  const decoder = new TextDecoder()
  const entries = eachIndexEntry(bytes, ({ path, stage, assumeValid, extended }) => {
    if (stage !== 0) {
      const name = decoder.decode(path)
      const stages = out.get(name) ?? new Set<number>()
      stages.add(stage)
      out.set(name, stages)
    }
    if (extended & 0x4000) skipWorktree.add(decoder.decode(path))
    if (extended & 0x2000) intentToAdd.add(decoder.decode(path))
    if (assumeValid) assumeUnchanged.add(decoder.decode(path))
  })
  return { unmerged: out, skipWorktree, intentToAdd, assumeUnchanged, entries }
}

/** The blob id an index file records for `path` (stage 0), or undefined when it has no such entry. */
export const indexedBlobId = (bytes: Uint8Array, path: string): string | undefined => {
  const wanted = new TextEncoder().encode(path)
  let oid: string | undefined
  eachIndexEntry(bytes, (e) => {
    if (e.stage !== 0 || e.path.length !== wanted.length || !e.path.every((b, i) => b === wanted[i])) return false
    oid = Buffer.from(bytes.subarray(e.start + 40, e.start + 60)).toString("hex")
    return true
  })
  return oid
}

/** The conflict stages of an index file's unmerged paths (see {@link indexMarks}). */
export const unmergedStages = (bytes: Uint8Array): ReadonlyMap<string, ReadonlySet<number>> => indexMarks(bytes).unmerged

/** The porcelain XY code git prints for an unmerged path, by the stages present. */
export const unmergedCode = (stages: ReadonlySet<number>): string => {
  const base = stages.has(1)
  const ours = stages.has(2)
  const theirs = stages.has(3)
  if (base && ours && theirs) return "UU"
  if (!base && ours && theirs) return "AA"
  if (base && ours) return "UD"
  if (base && theirs) return "DU"
  if (ours) return "AU"
  if (theirs) return "UA"
  return "DD"
}

/** The first path of an index file that is not valid UTF-8 (its bytes), or undefined. */
export const firstNonUtf8Path = (bytes: Uint8Array): Uint8Array | undefined => {
  let found: Uint8Array | undefined
  eachIndexEntry(bytes, ({ path }) => {
    // Plain ASCII, the usual case, needs no decoding.
    if (!path.some((b) => b >= 0x80) || isUtf8(path)) return false
    found = path.slice()
    return true
  })
  return found
}
