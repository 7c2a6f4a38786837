/** Lone surrogates: half of a UTF-16 pair, which is no character and has no UTF-8 form. */
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Where a text holds its first lone surrogate (`\ud800` in JSON), or undefined for well-formed text. Text that is
 * to be written or run is refused with it rather than changed: an encoder would write U+FFFD in its place, so the
 * file (or the command) would not be what was asked for.
 */
export const loneSurrogate = (text: string): { readonly line: number; readonly column: number; readonly unit: string } | undefined => {
  const at = text.search(LONE)
  if (at < 0) return undefined
  const before = text.slice(0, at)
  const unit = `\\u${text.charCodeAt(at).toString(16)}`
  // The column counts characters, as an editor does: a pair before it is one.
  return { line: before.split("\n").length, column: [...before.slice(before.lastIndexOf("\n") + 1)].length + 1, unit }
}

/** The problem said of a text holding one, for a field error. */
export const loneSurrogateProblem = (found: { readonly line: number; readonly column: number; readonly unit: string }): string =>
  `holds a lone UTF-16 surrogate (${found.unit}) at line ${found.line}, column ${found.column}: half of a pair, no character, and no UTF-8 form, so nothing was done; send the character whole (both halves of the pair) or leave it out`
