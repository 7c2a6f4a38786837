/**
 * Very long lines (minified code, data files) are cut to a window around
 * their first match, with a marker saying how long the line really is, so
 * one line cannot flood the model's context.
 */
export const cutLongLine = (text: string, column: number, max: number, line?: number): string => {
  if (text.length <= max) return text
  let start = Math.max(0, Math.min(column - Math.floor(max / 4), text.length - max))
  let end = start + max
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--
  // Characters are counted as read counts them (code points), so its column continues the line exactly.
  const from = codePoints(text, 0, start)
  const shownTo = from + codePoints(text, start, end)
  const total = shownTo + codePoints(text, end, text.length)
  // The Read that shows what is missing: the rest after the window, or (a window at the line's end) its start.
  const rest =
    line === undefined
      ? ""
      : end < text.length
        ? `; Read(offset=${line - 1}, limit=1, column=${shownTo}) continues it`
        : `; Read(offset=${line - 1}, limit=1) shows it from the start`
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""} [line cut: characters ${from + 1}-${shownTo} of ${total}${rest}]`
}

/** Code points in `text[from, to)` (a surrogate pair counts once). */
const codePoints = (text: string, from: number, to: number): number => {
  let n = to - from
  for (let i = from; i < to; i++) if (isLowSurrogate(text.charCodeAt(i)) && i > from) n--
  return n
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff
