/**
 * What a message may echo of a value someone typed: a command line's word can hold escape sequences (which would
 * drive the terminal that prints the message), line breaks (a forged second line), half a surrogate pair or
 * megabytes. Shown in single quotes, as the messages quote words, with every control character, line separator,
 * bidirectional override and lone surrogate written as an escape (`\n`, `\u001b`), and cut at `max` characters
 * with the whole length said.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

const SHORT: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

export const shownValue = (value: string, max = 80): string => {
  let cut = value.length > max ? value.slice(0, max) : value
  // A cut between the halves of a surrogate pair would show half a character.
  if (cut.length < value.length && /[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1)
  const escaped = cut.replace(INVISIBLE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
  return cut.length < value.length ? `'${escaped}…' (${value.length} characters)` : `'${escaped}'`
}
