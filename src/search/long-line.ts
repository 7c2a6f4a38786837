/**
 * Very long lines (minified code, data files) are cut to a window around
 * their first match, with a marker saying how long the line really is, so
 * one line cannot flood the model's context.
 */
export const cutLongLine = (text: string, column: number, max: number): string => {
  if (text.length <= max) return text
  let start = Math.max(0, Math.min(column - Math.floor(max / 4), text.length - max))
  let end = start + max
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""} [line cut: ${text.length} characters]`
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff
