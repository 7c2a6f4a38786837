import { LspPositionError } from "./errors.ts"
import { counted } from "../protocol/plural.ts"

/**
 * Positions between the model and a server. The model counts 1-based lines
 * and characters as it sees them (Unicode code points); LSP counts 0-based
 * lines and UTF-16 code units (the encoding every server must support).
 */

/** The file's lines as LSP splits them: at \n, \r\n and \r. */
export const lspLines = (text: string): ReadonlyArray<string> => text.split(/\r\n|\r|\n/)

/** 1-based line/character (code points) → a 0-based LSP position in UTF-16 units. */
export const toLspPosition = (
  lines: ReadonlyArray<string>,
  line: number,
  character: number,
): { readonly line: number; readonly character: number } => {
  if (!Number.isInteger(line) || line < 1 || line > lines.length) {
    // Counted as read counts them: the empty piece after a final line break is no line of its own.
    const shown = lines.length > 1 && lines.at(-1) === "" ? lines.length - 1 : lines.length
    throw new LspPositionError({ field: "line", message: `line ${line} is outside the file (it has ${counted(shown, "line")}; lines start at 1).` })
  }
  const points = [...lines[line - 1]!]
  if (!Number.isInteger(character) || character < 1 || character > points.length + 1) {
    throw new LspPositionError({
      field: "character",
      message: `character ${character} is outside line ${line} (it has ${counted(points.length, "character")}; characters start at 1).`,
    })
  }
  let units = 0
  for (let i = 0; i < character - 1; i++) units += points[i]!.length
  return { line: line - 1, character: units }
}

/** A 0-based LSP position (UTF-16 units) → 1-based line/character in code points. Clamped to the text. */
export const fromLspPosition = (
  lines: ReadonlyArray<string>,
  position: { readonly line: number; readonly character: number },
): { readonly line: number; readonly character: number } => {
  const text = lines[position.line]
  if (text === undefined) return { line: position.line + 1, character: position.character + 1 }
  const prefix = text.slice(0, Math.max(0, position.character))
  return { line: position.line + 1, character: [...prefix].length + 1 }
}
