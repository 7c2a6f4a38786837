import type { Interface } from "node:readline"

/** Where the cursor stands on the screen, relative to the prompt's first row (readline's `getCursorPos`). */
export interface CursorPos {
  readonly rows: number
  readonly cols: number
}

/** Text whose every character takes one column and never moves to a new row by itself: printable ASCII. */
const ONE_COLUMN_EACH = /^[\x20-\x7e]*$/

/**
 * Makes `rl.getCursorPos()` cost what was typed since it was last asked instead of the whole line.
 *
 * readline asks it twice for every key typed at the end of the line (to tell whether the key starts a new
 * screen row) and each answer measures the prompt and the whole line again, character by character: typing a
 * line of n characters cost O(n²), and at a few thousand characters each key's echo lagged by milliseconds
 * (5,000 keys: 8.9 s). Here the last answer is remembered with the text it measured; when the text now is
 * that text with printable ASCII added after it (what typing at the end does), the position moves on by that
 * many columns. Anything else (a wide or combining character, a tab, a newline, a shorter or changed text, a
 * new terminal width) is measured in full by readline's own method, so the answer is always what it would say.
 */
export const incrementalCursorPos = (rl: Interface): { readonly measured: () => number } => {
  const full = rl.getCursorPos.bind(rl)
  const internals = rl as unknown as { line: string; cursor: number; getPrompt(): string; columns?: number }
  let last: { text: string; width: number; pos: CursorPos } | undefined
  let measured = 0
  rl.getCursorPos = () => {
    const text = internals.getPrompt() + internals.line.slice(0, internals.cursor)
    // readline wraps at the output's width (Infinity when it has none: then no row ever ends).
    const width = internals.columns ?? Infinity
    if (last && last.width === width && text.length >= last.text.length && text.startsWith(last.text)) {
      const added = text.slice(last.text.length)
      if (ONE_COLUMN_EACH.test(added)) {
        const pos = Number.isFinite(width)
          ? { rows: last.pos.rows + Math.floor((last.pos.cols + added.length) / width), cols: (last.pos.cols + added.length) % width }
          : { rows: last.pos.rows, cols: last.pos.cols + added.length }
        last = { text, width, pos }
        return pos
      }
    }
    measured++
    const pos = full()
    // Rows and columns add up to one offset only on a single screen line of text: with a newline they do not.
    last = text.includes("\n") ? undefined : { text, width, pos }
    return pos
  }
  return { measured: () => measured }
}
