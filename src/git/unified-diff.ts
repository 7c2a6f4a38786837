import { structuredPatch } from "diff"
import { quotePath } from "./quote-path.ts"
import { isBinary, MAX_SCORE } from "./similarity.ts"

/** One side of a file change: its blob id, mode and bytes. */
export interface DiffSide {
  readonly path: string
  readonly oid: string
  readonly mode: number
  readonly bytes: Uint8Array
  /** What the `diff` attribute says of the path: binary (true), text (false), or guess from the bytes (absent). */
  readonly binary?: boolean
}

/** A changed file: both sides for a modification or rename, one for an addition or deletion. */
export interface FileChange {
  readonly old?: DiffSide
  readonly new?: DiffSide
  /** Rename similarity (0..MAX_SCORE) when old and new paths differ. */
  readonly score?: number
  /** A copy (the old side stays): "copy from/to" instead of "rename from/to". */
  readonly copy?: boolean
}

export interface FileDiffStats {
  readonly additions: number
  readonly deletions: number
}

const ZERO = "0000000"
const abbrev = (oid: string) => oid.slice(0, 7)
const mode = (m: number) => m.toString(8)
const decoder = new TextDecoder()

/** The funcname git's default driver shows after @@: a line starting with a letter, `_` or `$`, cut to 80 bytes. */
const funcLine = (line: string): string | undefined => {
  if (!/^[A-Za-z_$]/.test(line)) return undefined
  const bytes = new TextEncoder().encode(line).subarray(0, 80)
  return decoder.decode(bytes).replace(/\s+$/, "")
}

const range = (start: number, count: number) => (count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`)

/** The hunks of a text change, as `git diff` prints them (3 lines of context, funcname after @@). */
const hunks = (oldText: string, newText: string, stats: { additions: number; deletions: number }): Array<string> => {
  const patch = structuredPatch("a", "b", oldText, newText, undefined, undefined, { context: 3 })
  const oldLines = oldText.split("\n")
  const out: Array<string> = []
  let func: string | undefined
  let previousStart = -1
  for (const h of patch.hunks) {
    // git keeps the last funcname found, searching back from the hunk to the previous hunk's start.
    const start = h.oldStart - 2
    for (let l = start; l > previousStart && l >= 0; l--) {
      const found = funcLine(oldLines[l] ?? "")
      if (found !== undefined) {
        func = found
        break
      }
    }
    previousStart = start
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@${func ? ` ${func}` : ""}`)
    for (const line of h.lines) {
      if (line.startsWith("+")) stats.additions++
      else if (line.startsWith("-")) stats.deletions++
      out.push(line)
    }
  }
  return out
}

/**
 * One file's section of `git diff` output: the `diff --git` header, the
 * extended header lines (modes, new/deleted file, similarity, index) and the
 * hunks, or "Binary files … differ".
 */
export const formatFileDiff = (change: FileChange): { readonly text: string; readonly stats: FileDiffStats } => {
  const { old: a, new: b } = change
  const aName = `a/${(a ?? b)!.path}`
  const bName = `b/${(b ?? a)!.path}`
  const lines = [`diff --git ${quotePath(aName)} ${quotePath(bName)}`]
  if (a && b && a.mode !== b.mode) lines.push(`old mode ${mode(a.mode)}`, `new mode ${mode(b.mode)}`)
  if (!a && b) lines.push(`new file mode ${mode(b.mode)}`)
  if (a && !b) lines.push(`deleted file mode ${mode(a.mode)}`)
  if (a && b && a.path !== b.path) {
    lines.push(`similarity index ${Math.floor(((change.score ?? MAX_SCORE) * 100) / MAX_SCORE)}%`)
    const kind = change.copy === true ? "copy" : "rename"
    lines.push(`${kind} from ${quotePath(a.path)}`, `${kind} to ${quotePath(b.path)}`)
  }
  const stats = { additions: 0, deletions: 0 }
  const sameOid = a?.oid === b?.oid
  // The same id on both sides is a mode change or a rename alone; a submodule's side differs still when it is "-dirty".
  if (sameOid && !(a && b && !Buffer.from(a.bytes).equals(b.bytes))) return { text: lines.join("\n"), stats }
  const sameMode = a && b && a.mode === b.mode
  if (!sameOid) lines.push(`index ${a ? abbrev(a.oid) : ZERO}..${b ? abbrev(b.oid) : ZERO}${sameMode ? ` ${mode(a.mode)}` : ""}`)
  const header = (name: string | undefined) => (name === undefined ? "/dev/null" : `${quotePath(name)}${name.includes(" ") ? "\t" : ""}`)
  const oldName = a ? aName : undefined
  const newName = b ? bName : undefined
  const binary = (side: DiffSide | undefined) => side !== undefined && (side.binary ?? isBinary(side.bytes))
  if (binary(a) || binary(b)) {
    lines.push(`Binary files ${oldName ? quotePath(oldName) : "/dev/null"} and ${newName ? quotePath(newName) : "/dev/null"} differ`)
    return { text: lines.join("\n"), stats }
  }
  const body = hunks(a ? decoder.decode(a.bytes) : "", b ? decoder.decode(b.bytes) : "", stats)
  // A file added or deleted empty has no hunk: git then prints no ---/+++ lines either.
  if (body.length > 0) lines.push(`--- ${header(oldName)}`, `+++ ${header(newName)}`, ...body)
  return { text: lines.join("\n"), stats }
}
