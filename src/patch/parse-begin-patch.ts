import type { FilePatch, Hunk, HunkLine, ParsedPatch } from "./model.ts"
import { syntaxProblem } from "./patch-problem.ts"

const BEGIN = "*** Begin Patch"
const END = "*** End Patch"
const ADD = "*** Add File:"
const DELETE = "*** Delete File:"
const UPDATE = "*** Update File:"
const MOVE = "*** Move to:"
const END_OF_FILE = "*** End of File"

/** True when the text is (or is wrapped around) a `*** Begin Patch` envelope. */
export const isBeginPatch = (text: string): boolean => {
  const first = text.trimStart().split("\n", 1)[0]?.trim() ?? ""
  return first === BEGIN || (/^<<['"]?EOF['"]?$/.test(first) && text.includes(BEGIN))
}

interface Chunk {
  anchors: Array<string>
  lines: Array<HunkLine & { bare?: boolean }>
  atEnd: boolean
  line: number
}

/**
 * Parses the `*** Begin Patch` envelope some models are trained to emit:
 *
 * ```
 * *** Begin Patch
 * *** Add File: path        then "+" lines: the whole content
 * *** Delete File: path
 * *** Update File: path
 * *** Move to: new/path     (optional rename)
 * @@ class Foo              anchor lines to find first (stackable), then
 *  context / -old / +new     the hunk; "*** End of File" pins it to the end
 * *** End Patch
 * ```
 *
 * Hunks carry no line numbers: each is found after the previous one. Leading
 * and trailing whitespace around markers and a `<<'EOF'` heredoc wrapper are
 * tolerated. Throws PatchProblem.
 */
export const parseBeginPatch = (input: string): ParsedPatch => {
  let lines = input.trim().split("\n")
  let offset = 0
  if (/^<<['"]?EOF['"]?$/.test(lines[0]!.trim()) && lines.length >= 4 && lines[lines.length - 1]!.trim().endsWith("EOF")) {
    lines = lines.slice(1, -1)
    offset = 1
  }
  if (lines[0]!.endsWith("\r")) lines = lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l))
  const at = (i: number) => i + 1 + offset
  if (lines[0]!.trim() !== BEGIN) throw syntaxProblem(at(0), `the first line must be '${BEGIN}'.`)
  if (lines.length < 2 || lines[lines.length - 1]!.trim() !== END) {
    throw syntaxProblem(at(lines.length - 1), `the last line must be '${END}' (was the patch cut off?).`)
  }
  const body = lines.slice(1, -1)
  const files: Array<FilePatch> = []
  const isOp = (l: string) => {
    const t = l.trim()
    return t.startsWith(ADD) || t.startsWith(DELETE) || t.startsWith(UPDATE)
  }
  const pathAfter = (l: string, marker: string, i: number) => {
    const p = l.trim().slice(marker.length).trim()
    if (p === "") throw syntaxProblem(at(i + 1), `'${marker}' needs a path.`)
    return p
  }

  let i = 0
  while (i < body.length) {
    const l = body[i]!
    const t = l.trim()
    if (t === "") {
      i++
      continue
    }
    if (t.startsWith(ADD)) {
      const path = pathAfter(l, ADD, i)
      const start = i
      const added: Array<HunkLine> = []
      i++
      for (; i < body.length && body[i]!.startsWith("+"); i++) added.push({ kind: "+", ...textAndCr(body[i]!.slice(1)) })
      const hunks: Array<Hunk> =
        added.length === 0 ? [] : [{ number: 1, header: `${ADD} ${path}`, oldStart: 0, lines: added, oldNoNewline: false, newNoNewline: false }]
      files.push({ operation: "create", newPath: path, hunks, line: at(start + 1), beginPatch: true })
      continue
    }
    if (t.startsWith(DELETE)) {
      files.push({ operation: "delete", oldPath: pathAfter(l, DELETE, i), hunks: [], line: at(i + 1), beginPatch: true })
      i++
      continue
    }
    if (t.startsWith(UPDATE)) {
      const path = pathAfter(l, UPDATE, i)
      const start = i
      i++
      let moveTo: string | undefined
      if (i < body.length && body[i]!.trim().startsWith(MOVE)) {
        moveTo = pathAfter(body[i]!, MOVE, i)
        i++
      }
      const chunks: Array<Chunk> = []
      let current: Chunk | undefined
      const close = () => {
        if (!current) return
        // Blank lines that merely separate chunks are not context.
        while (current.lines.length > 0 && current.lines[current.lines.length - 1]!.bare) current.lines.pop()
        if (current.lines.length === 0) {
          throw syntaxProblem(at(current.line), `an '@@' section of '${path}' has no lines (expected ' ', '-' or '+' lines after it).`)
        }
        chunks.push(current)
        current = undefined
      }
      for (; i < body.length; i++) {
        const line = body[i]!
        const trimmed = line.trim()
        if (isOp(line)) break
        if (trimmed === END_OF_FILE) {
          if (!current || current.lines.length === 0) throw syntaxProblem(at(i + 1), `'${END_OF_FILE}' must follow a hunk's lines.`)
          current.atEnd = true
          close()
          continue
        }
        if (line.startsWith("@@")) {
          const anchor = line.slice(2).trim()
          if (current && current.lines.some((x) => !x.bare)) close()
          else if (current) current.lines = []
          if (!current) current = { anchors: [], lines: [], atEnd: false, line: i + 1 }
          if (anchor !== "") current.anchors.push(anchor)
          continue
        }
        const c = line[0]
        if (c === " " || c === "-" || c === "+" || line === "") {
          if (!current) {
            if (line === "") continue
            current = { anchors: [], lines: [], atEnd: false, line: i + 1 }
          }
          if (line === "") current.lines.push({ kind: " ", text: "", cr: false, bare: true })
          else current.lines.push({ kind: c as HunkLine["kind"], ...textAndCr(line.slice(1)) })
          continue
        }
        throw syntaxProblem(
          at(i + 1),
          `unexpected line in the update of '${path}': '${line}'. Every hunk line starts with ' ' (context), '-' (removed) or '+' (added); sections start with '@@' or '*** Add/Delete/Update File:'.`,
        )
      }
      close()
      if (chunks.length === 0 && moveTo === undefined) {
        throw syntaxProblem(at(start + 1), `'${UPDATE} ${path}' has no hunks.`)
      }
      chunks.forEach((ch, k) => {
        if (ch.lines.every((x) => x.kind === " ")) {
          throw syntaxProblem(at(ch.line), `hunk ${k + 1} of '${path}' changes nothing (no '+' or '-' lines).`)
        }
      })
      const hunks: Array<Hunk> = chunks.map((ch, k) => ({
        number: k + 1,
        header: ch.anchors.length > 0 ? ch.anchors.map((a) => `@@ ${a}`).join(" ") : "@@",
        lines: ch.lines.map(({ kind, text, cr }) => ({ kind, text, cr })),
        oldNoNewline: false,
        newNoNewline: false,
        ...(ch.anchors.length > 0 ? { anchors: ch.anchors } : {}),
        ...(ch.atEnd ? { atEnd: true } : {}),
      }))
      files.push({
        operation: moveTo !== undefined && moveTo !== path ? "rename" : "modify",
        oldPath: path,
        newPath: moveTo ?? path,
        hunks,
        line: at(start + 1),
        beginPatch: true,
      })
      continue
    }
    throw syntaxProblem(at(i + 1), `expected '${ADD} <path>', '${DELETE} <path>' or '${UPDATE} <path>', got '${l}'.`)
  }
  if (files.length === 0) throw syntaxProblem(at(0), "the patch has no file operations between its begin and end markers.")
  return { format: "begin-patch", files }
}

const textAndCr = (s: string): { text: string; cr: boolean } =>
  s.endsWith("\r") ? { text: s.slice(0, -1), cr: true } : { text: s, cr: false }
