/** The calculator's tokens, with number literals checked against Python's grammar. */
import { CalcError } from "./value.ts"

export type Token = { t: "num"; text: string } | { t: "id"; text: string } | { t: "op"; text: string }

const DIGITS = "\\d(?:_?\\d)*"
const PYTHON_NUMBER = new RegExp(
  `^(?:(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.)(?:[eE][+-]?${DIGITS})?|${DIGITS}[eE][+-]?${DIGITS}|0(?:_?0)*|[1-9](?:_?\\d)*)$`,
)

/** Throws when `text` is no Python number literal, saying why. */
const numberProblem = (text: string, at: number): void => {
  if (PYTHON_NUMBER.test(text)) return
  const why = /_(?!\d)|(?<!\d)_/.test(text)
    ? "'_' may only stand alone between two digits"
    : /^0+_?\d/.test(text) && /^[\d_]+$/.test(text)
      ? "leading zeros are not allowed in a decimal integer"
      : /[eE][+-]?$/.test(text)
        ? "the exponent has no digits"
        : "it is not a number Python would read"
  throw new CalcError(`invalid number '${text}' at position ${at}: ${why}`)
}

export const tokenize = (src: string): Array<Token> => {
  const out: Array<Token> = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (/\s/.test(c)) {
      i++
    } else if (/[0-9.]/.test(c)) {
      // The whole literal as far as it could reach, then checked against Python's grammar: `1__0`, `1_`, `01`, `1e`
      // are errors there, not numbers with the odd characters dropped.
      const m = /^[\d_]*(?:\.[\d_]*)?(?:[eE][+-]?[\d_]*)?/.exec(src.slice(i))!
      if (m[0] === "" || m[0] === ".") throw new CalcError(`unexpected '${c}' at position ${i + 1}`)
      numberProblem(m[0], i + 1)
      out.push({ t: "num", text: m[0] })
      i += m[0].length
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_]\w*/.exec(src.slice(i))!
      out.push({ t: "id", text: m[0] })
      i += m[0].length
    } else if (src.startsWith("**", i)) {
      out.push({ t: "op", text: "**" })
      i += 2
    } else if ("+-*/^(),[]".includes(c)) {
      out.push({ t: "op", text: c })
      i++
    } else {
      throw new CalcError(`unsupported character '${c}' at position ${i + 1}`)
    }
  }
  return out
}
