import { locateHunks, type Placement } from "./locate-hunks.ts"
import type { FilePatch, HunkLine } from "./model.ts"
import { dominantEol, endsWithNewline, joinLines, splitLines } from "./text-lines.ts"

export interface AppliedText {
  readonly text: string
  /** Where each hunk went, in file order. */
  readonly placements: ReadonlyArray<Placement>
}

/**
 * Applies one file patch's hunks to the old text (pure; "" for a new file).
 *
 * Line endings: a patch whose lines carry "\r" (a diff taken of a CRLF file)
 * is applied as written; a LF-only patch against a CRLF file matches it and
 * adds its lines with CRLF, so the file keeps its style. Context lines always
 * keep the file's own bytes. A UTF-8 BOM is kept unless the patch itself
 * spells one out. `\ No newline at end of file` decides the final newline of
 * a hunk that ends the file; otherwise the file's final newline (or its
 * absence) is kept. Throws PatchProblem when a hunk does not fit.
 */
export const applyToText = (oldText: string, fp: FilePatch, path: string): AppliedText => {
  const hunkLines = fp.hunks.flatMap((h) => h.lines)
  const bomInPatch = hunkLines.some((l) => l.text.startsWith("\uFEFF"))
  const old = splitLines(oldText, !bomInPatch)
  const crInPatch = hunkLines.some((l) => l.cr)
  const fileEol = dominantEol(old)
  const eolOf = (l: HunkLine) => (crInPatch ? (l.cr ? "\r\n" : "\n") : fileEol)
  const placements = locateHunks(old.lines, fp.hunks, { path })

  const lines: Array<string> = []
  const eols: Array<string> = []
  let finalNewline = endsWithNewline(old)
  let pos = 0
  const copy = (from: number, to: number) => {
    for (let i = from; i < to; i++) {
      lines.push(old.lines[i]!)
      eols.push(old.eols[i]!)
    }
  }
  for (const p of placements) {
    copy(pos, p.start)
    let k = p.start
    for (const l of p.hunk.lines) {
      if (l.kind === " ") {
        lines.push(old.lines[k]!)
        eols.push(old.eols[k]!)
        k++
      } else if (l.kind === "-") k++
      else {
        lines.push(l.text)
        eols.push(eolOf(l))
      }
    }
    pos = k
    if (p.start + p.length === old.lines.length) {
      if (p.hunk.newNoNewline) finalNewline = false
      else if (p.hunk.oldNoNewline) finalNewline = true
    }
  }
  copy(pos, old.lines.length)

  const last = lines.length - 1
  for (let i = 0; i < last; i++) if (eols[i] === "") eols[i] = fileEol
  if (last >= 0) {
    if (!finalNewline) eols[last] = ""
    else if (eols[last] === "") eols[last] = fileEol
  }
  return { text: joinLines({ lines, eols, bom: old.bom }), placements }
}
