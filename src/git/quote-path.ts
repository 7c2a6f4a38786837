const ESCAPES: Record<number, string> = { 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\" }

/**
 * A path as git prints it (quote_c_style with core.quotePath on): left bare
 * unless it holds a quote, a backslash, a control character or a non-ASCII
 * byte — or, for porcelain output, a space — and then double-quoted with C
 * escapes and octal bytes ("n\303\253w.txt").
 */
export const quotePath = (path: string, options: { readonly quoteSpace?: boolean } = {}): string => {
  const bytes = new TextEncoder().encode(path)
  const special = (b: number) => b < 0x20 || b === 0x22 || b === 0x5c || b >= 0x7f || (options.quoteSpace === true && b === 0x20)
  if (!bytes.some(special)) return path
  let out = '"'
  let plain: Array<number> = []
  const flush = () => {
    if (plain.length > 0) out += new TextDecoder().decode(new Uint8Array(plain))
    plain = []
  }
  for (const b of bytes) {
    if (b === 0x20 || !special(b)) {
      plain.push(b)
      continue
    }
    flush()
    out += ESCAPES[b] ?? `\\${b.toString(8).padStart(3, "0")}`
  }
  flush()
  return `${out}"`
}
