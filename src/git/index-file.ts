import { eachIndexEntry } from "../workspace/index-entries.ts"
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
