/**
 * Parses JSON with comments (`//`, `/* *\/`) and trailing commas, as anvil.json
 * allows. Strings are copied verbatim, so a `//` inside a URL is kept.
 */
export const parseJsonc = (text: string): unknown => {
  let out = ""
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (c === '"') {
      const start = i++
      while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1
      out += text.slice(start, ++i)
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      // Keep newlines so JSON.parse positions still point at the right line.
      const body = text.slice(i, end < 0 ? n : end + 2)
      out += body.replace(/[^\n]/g, " ")
      i += body.length
    } else {
      out += c
      i++
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, "$1"))
}
