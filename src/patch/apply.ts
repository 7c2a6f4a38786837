import { locateHunks, type Placement } from "./locate-hunks.ts"
import type { FilePatch, HunkLine } from "./model.ts"
import { PatchProblem } from "./patch-problem.ts"
import { BYTE_ORDER_MARK, LineView } from "./text-lines.ts"

export interface AppliedText {
  readonly text: string
  /** Where each hunk went, in file order. */
  readonly placements: ReadonlyArray<Placement>
}

/** Output pieces: a run of old lines copied as they are, or one line with its terminator. */
type Piece = { readonly from: number; readonly to: number } | { readonly text: string; eol: string }

/**
 * Applies one file patch's hunks to the old text (pure; "" for a new file).
 *
 * Line endings: a patch whose lines carry "\r" (a diff taken of a CRLF file)
 * is applied as written; a LF-only patch against a CRLF file matches it and
 * adds its lines with CRLF, so the file keeps its style. Context lines and
 * untouched stretches keep the file's own bytes. A UTF-8 BOM is kept unless
 * the patch itself spells one out. `\ No newline at end of file` decides the
 * final newline of a hunk that ends the file; otherwise the file's final
 * newline (or its absence) is kept. Throws PatchProblem when a hunk does not fit.
 */
export const applyToText = (oldText: string, fp: FilePatch, path: string): AppliedText => {
  const hunkLines = fp.hunks.flatMap((h) => h.lines)
  const bomInPatch = hunkLines.some((l) => l.text.startsWith(BYTE_ORDER_MARK))
  const old = new LineView(oldText, !bomInPatch)
  const n = old.count
  const crInPatch = hunkLines.some((l) => l.cr)
  const fileEol = old.dominantEol
  const eolOf = (l: HunkLine) => (crInPatch ? (l.cr ? "\r\n" : "\n") : fileEol)
  const placements = locateHunks({ count: n, line: (i) => old.line(i) }, fp.hunks, { path })

  const pieces: Array<Piece> = []
  // Only the old last line can lack a terminator; it always goes out as its own piece so it can get one.
  const copy = (from: number, to: number) => {
    const bare = !old.finalNewline && to === n && from < to
    const end = bare ? to - 1 : to
    if (end > from) pieces.push({ from, to: end })
    if (bare) pieces.push({ text: old.line(n - 1), eol: "" })
  }
  let finalNewline = old.finalNewline
  let pos = 0
  for (const p of placements) {
    if (p.start < pos) {
      throw new PatchProblem("does_not_apply", `Hunk ${p.hunk.number} of ${path} (${p.hunk.header}) overlaps the hunk before it. Nothing was changed.`, { path, fileLine: p.start + 1 })
    }
    copy(pos, p.start)
    let k = p.start
    for (const l of p.hunk.lines) {
      if (l.kind === " ") {
        copy(k, k + 1)
        k++
      } else if (l.kind === "-") k++
      else pieces.push({ text: l.text, eol: eolOf(l) })
    }
    pos = k
    if (p.start + p.length === n) {
      if (p.hunk.newNoNewline) finalNewline = false
      else if (p.hunk.oldNoNewline) finalNewline = true
    }
  }
  copy(pos, n)

  // Terminators: every line but the last has one; the last has one exactly when the file ends with a newline.
  const lastPiece = pieces[pieces.length - 1]
  if (lastPiece && "from" in lastPiece && !finalNewline) {
    pieces.pop()
    if (lastPiece.to - 1 > lastPiece.from) pieces.push({ from: lastPiece.from, to: lastPiece.to - 1 })
    pieces.push({ text: old.line(lastPiece.to - 1), eol: "" })
  }
  const parts: Array<string> = new Array(pieces.length + 1)
  parts[0] = old.bom ? BYTE_ORDER_MARK : ""
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!
    if ("from" in piece) {
      parts[i + 1] = old.text.slice(old.offset(piece.from), old.offset(piece.to))
      continue
    }
    const last = i === pieces.length - 1
    const eol = last && !finalNewline ? "" : piece.eol === "" ? fileEol : piece.eol
    parts[i + 1] = piece.text + eol
  }
  return { text: parts.join(""), placements }
}
