import { Effect } from "effect"
import { FileSystem } from "./file-system.ts"
import { Path } from "effect/Path"
import { DEFAULT_IGNORED_DIRS } from "./ignore-rules.ts"
import { Workspace } from "./workspace.ts"
import { allPathBytesOf } from "./lossy-name.ts"
import { decodePath } from "./path-bytes.ts"

/**
 * "Did you mean" for a path that does not exist: existing paths near it with
 * a similar name — in the nearest existing folder, one level below it, and
 * one level above it — best first. A bounded look, never a walk of the tree.
 */

export interface SimilarOptions {
  /** Most suggestions. Default 3. */
  readonly max?: number
  /** Only suggest files, or only folders. */
  readonly kind?: "file" | "dir"
}

const MAX_SUBDIRS = 64
const THRESHOLD = 0.55

/** Levenshtein distance, two rows. */
export const editDistance = (a: string, b: string): number => {
  if (a === b) return 0
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = cur
  }
  return prev[b.length]!
}

const stem = (name: string) => {
  const dot = name.lastIndexOf(".")
  return dot > 0 ? name.slice(0, dot) : name
}

/** How alike two names are, 0..1: equal ignoring case is 1, the same stem with another extension 0.9, else by edit distance. */
export const nameSimilarity = (a: string, b: string): number => {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  if (x === y) return 1
  if (stem(x) === stem(y) && stem(x) !== "") return 0.9
  return 1 - editDistance(x, y) / Math.max(x.length, y.length, 1)
}

interface Candidate {
  readonly absolute: string
  readonly score: number
}

export const similarPaths = (absolute: string, options: SimilarOptions = {}) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const ws = yield* Workspace
    const max = options.max ?? 3
    if (!ws.contains(absolute)) return [] as ReadonlyArray<string>

    const isDir = (p: string) =>
      fs.stat(p).pipe(
        Effect.map((s) => s.type === "Directory"),
        Effect.orElseSucceed(() => false),
      )
    const entries = (dir: string) => fs.readDirectoryEntries(dir).pipe(Effect.orElseSucceed(() => []))
    const fits = (type: string) =>
      options.kind === undefined || type === "SymbolicLink" || type === "Unknown" || (options.kind === "dir" ? type === "Directory" : type !== "Directory")

    // The nearest existing folder at or above the missing path.
    let base = path.dirname(absolute)
    while (!(yield* isDir(base)) && ws.contains(path.dirname(base)) && path.dirname(base) !== base) base = path.dirname(base)
    if (!(yield* isDir(base))) return []
    const rest = path.relative(base, absolute).split(path.sep)
    const wanted = rest[rest.length - 1]!
    const seen = new Map<string, number>()
    const add = (c: Candidate) => {
      if (c.absolute === absolute || !ws.contains(c.absolute)) return
      seen.set(c.absolute, Math.max(seen.get(c.absolute) ?? 0, c.score))
    }

    const here = yield* entries(base)
    for (const e of here) {
      const full = path.join(base, e.name)
      if (fits(e.type)) add({ absolute: full, score: nameSimilarity(e.name, wanted) })
      // A name that is not UTF-8 is listed with U+FFFD: each file it stands for is offered by its real name (shown
      // quoted), also when that is the very path asked for (given with U+FFFD, as it reads).
      if (fits(e.type) && e.name.includes("\uFFFD")) {
        for (const bytes of allPathBytesOf(full)) {
          if (typeof bytes !== "string") add({ absolute: decodePath(bytes), score: nameSimilarity(e.name, wanted) })
        }
      }
      // A misspelt folder on the way: src/utlis/helper.py → src/utils/helper.py.
      if (rest.length > 1 && e.type === "Directory" && nameSimilarity(e.name, rest[0]!) >= THRESHOLD) {
        const guess = path.join(full, ...rest.slice(1))
        if (yield* fs.exists(guess).pipe(Effect.orElseSucceed(() => false))) {
          add({ absolute: guess, score: 0.5 + nameSimilarity(e.name, rest[0]!) / 2 })
        }
      }
    }
    // One level down and one level up: the right name in a neighbouring folder.
    const subdirs = here
      .filter((e) => e.type === "Directory" && !e.name.startsWith(".") && !DEFAULT_IGNORED_DIRS.includes(e.name))
      .slice(0, MAX_SUBDIRS)
    const neighbours = [
      ...subdirs.map((e) => path.join(base, e.name)),
      ...(base !== ws.root && ws.contains(path.dirname(base)) ? [path.dirname(base)] : []),
    ]
    for (const dir of neighbours) {
      for (const e of yield* entries(dir)) {
        if (fits(e.type)) add({ absolute: path.join(dir, e.name), score: nameSimilarity(e.name, wanted) * 0.95 })
      }
    }
    return [...seen.entries()]
      .filter(([, score]) => score >= THRESHOLD)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, max)
      .map(([p]) => ws.display(p))
  })
