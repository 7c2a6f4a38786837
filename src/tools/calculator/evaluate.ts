import { Data } from "effect"
/**
 * A safe arithmetic evaluator with Python's semantics:
 * integers are exact (bigint), `/` gives a float, `**` binds tighter than a
 * unary minus on its left and groups to the right, `^` is bitwise XOR on
 * integers. No eval: a tokenizer and a precedence-climbing parser.
 */
export type Value = { readonly kind: "int"; readonly v: bigint } | { readonly kind: "float"; readonly v: number }

export class CalcError extends Data.TaggedError("CalcError")<{ readonly message: string }> {
  constructor(message: string) {
    super({ message })
  }
}

const int = (v: bigint): Value => ({ kind: "int", v })
const float = (v: number): Value => ({ kind: "float", v })
const num = (x: Value) => (x.kind === "int" ? Number(x.v) : x.v)

type Token = { t: "num"; text: string } | { t: "id"; text: string } | { t: "op"; text: string }

const tokenize = (src: string): Array<Token> => {
  const out: Array<Token> = []
  let i = 0
  while (i < src.length) {
    const c = src[i]!
    if (/\s/.test(c)) {
      i++
    } else if (/[0-9.]/.test(c)) {
      const m = /^(?:\d[\d_]*)?(?:\.\d*)?(?:[eE][+-]?\d+)?/.exec(src.slice(i))!
      if (m[0] === "" || m[0] === ".") throw new CalcError(`unexpected '${c}' at position ${i + 1}`)
      out.push({ t: "num", text: m[0] })
      i += m[0].length
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_]\w*/.exec(src.slice(i))!
      out.push({ t: "id", text: m[0] })
      i += m[0].length
    } else if (src.startsWith("**", i)) {
      out.push({ t: "op", text: "**" })
      i += 2
    } else if ("+-*/^(),".includes(c)) {
      out.push({ t: "op", text: c })
      i++
    } else {
      throw new CalcError(`unsupported character '${c}' at position ${i + 1}`)
    }
  }
  return out
}

const binary = (op: string, a: Value, b: Value): Value => {
  if (op === "^") {
    if (a.kind !== "int" || b.kind !== "int") throw new CalcError("'^' is bitwise XOR and needs integers (use ** for powers)")
    return int(a.v ^ b.v)
  }
  if (op === "/") {
    if (num(b) === 0) throw new CalcError("division by zero")
    return float(num(a) / num(b))
  }
  if (a.kind === "int" && b.kind === "int") {
    if (op === "+") return int(a.v + b.v)
    if (op === "-") return int(a.v - b.v)
    if (op === "*") return int(a.v * b.v)
    if (op === "**") {
      if (b.v >= 0n) {
        if (b.v > 100_000n) throw new CalcError("exponent too large")
        return int(a.v ** b.v)
      }
      if (a.v === 0n) throw new CalcError("0 cannot be raised to a negative power")
      return float(Number(a.v) ** Number(b.v))
    }
  }
  const x = num(a)
  const y = num(b)
  if (op === "+") return float(x + y)
  if (op === "-") return float(x - y)
  if (op === "*") return float(x * y)
  if (x === 0 && y < 0) throw new CalcError("0 cannot be raised to a negative power")
  if (x < 0 && !Number.isInteger(y)) throw new CalcError("a negative number cannot be raised to a fractional power")
  return float(x ** y)
}

const toFloat = (name: string, x: Value) => {
  const v = num(x)
  if (!Number.isFinite(v)) throw new CalcError(`${name}: value out of range`)
  return v
}

const roundHalfEven = (x: number, digits: number): number => {
  const f = 10 ** digits
  const y = x * f
  const r = Math.round(y)
  const tie = Math.abs(y % 1) === 0.5
  return (tie && r % 2 !== 0 ? r - 1 : r) / f
}

const FUNCTIONS: Record<string, (args: Array<Value>) => Value> = {
  abs: ([x, ...rest]) => {
    if (!x || rest.length) throw new CalcError("abs() takes exactly one argument")
    return x.kind === "int" ? int(x.v < 0n ? -x.v : x.v) : float(Math.abs(x.v))
  },
  round: ([x, d, ...rest]) => {
    if (!x || rest.length) throw new CalcError("round() takes one or two arguments")
    if (d === undefined) return x.kind === "int" ? x : int(BigInt(roundHalfEven(x.v, 0)))
    if (d.kind !== "int") throw new CalcError("round(): ndigits must be an integer")
    return x.kind === "int" && d.v >= 0n ? x : float(roundHalfEven(num(x), Number(d.v)))
  },
  max: (args) => extreme(args, "max", (a, b) => a > b),
  min: (args) => extreme(args, "min", (a, b) => a < b),
  sum: (args) => args.reduce((acc, x) => binary("+", acc, x), int(0n)),
  sqrt: ([x]) => {
    const v = toFloat("sqrt", one("sqrt", x))
    if (v < 0) throw new CalcError("sqrt() of a negative number (math domain error)")
    return float(Math.sqrt(v))
  },
  sin: ([x]) => float(Math.sin(toFloat("sin", one("sin", x)))),
  cos: ([x]) => float(Math.cos(toFloat("cos", one("cos", x)))),
  tan: ([x]) => float(Math.tan(toFloat("tan", one("tan", x)))),
  log: ([x, base]) => {
    const v = toFloat("log", one("log", x))
    if (v <= 0) throw new CalcError("log() of a non-positive number (math domain error)")
    if (base === undefined) return float(Math.log(v))
    const b = toFloat("log", base)
    if (b <= 0 || b === 1) throw new CalcError("log(): invalid base (math domain error)")
    return float(Math.log(v) / Math.log(b))
  },
  exp: ([x]) => {
    const r = Math.exp(toFloat("exp", one("exp", x)))
    if (!Number.isFinite(r)) throw new CalcError("exp(): math range error")
    return float(r)
  },
}

const one = (name: string, x: Value | undefined): Value => {
  if (!x) throw new CalcError(`${name}() takes exactly one argument`)
  return x
}

const extreme = (args: Array<Value>, name: string, better: (a: number, b: number) => boolean): Value => {
  if (args.length === 0) throw new CalcError(`${name}() needs at least one argument`)
  return args.reduce((best, x) => (better(num(x), num(best)) ? x : best))
}

const CONSTANTS: Record<string, Value> = { pi: float(Math.PI), e: float(Math.E) }

/** Names an expression may use. */
export const KNOWN_NAMES = [...Object.keys(FUNCTIONS), ...Object.keys(CONSTANTS)]

/** Evaluates an expression; throws {@link CalcError} with a clear reason on bad input. */
export const evaluate = (source: string): Value => {
  const tokens = tokenize(source)
  let pos = 0
  const peek = () => tokens[pos]
  const expect = (text: string) => {
    const t = tokens[pos]
    if (!t || t.text !== text) throw new CalcError(`expected '${text}'${t ? ` but found '${t.text}'` : " at the end"}`)
    pos++
  }
  // Python precedence, lowest first: ^ (xor), + -, * /, unary + -, **.
  const levels: Array<Array<string>> = [["^"], ["+", "-"], ["*", "/"]]
  const parseLevel = (level: number): Value => {
    if (level === levels.length) return parseUnary()
    let left = parseLevel(level + 1)
    for (;;) {
      const t = peek()
      if (!t || t.t !== "op" || !levels[level]!.includes(t.text)) return left
      pos++
      left = binary(t.text, left, parseLevel(level + 1))
    }
  }
  const parseUnary = (): Value => {
    const t = peek()
    if (t?.t === "op" && (t.text === "-" || t.text === "+")) {
      pos++
      const v = parseUnary()
      if (t.text === "+") return v
      return v.kind === "int" ? int(-v.v) : float(-v.v)
    }
    return parsePower()
  }
  const parsePower = (): Value => {
    const base = parseAtom()
    const t = peek()
    if (t?.t === "op" && t.text === "**") {
      pos++
      return binary("**", base, parseUnary())
    }
    return base
  }
  const parseAtom = (): Value => {
    const t = tokens[pos++]
    if (!t) throw new CalcError("unexpected end of expression")
    if (t.t === "num") {
      const clean = t.text.replace(/_/g, "")
      return /[.eE]/.test(clean) ? float(Number(clean)) : int(BigInt(clean))
    }
    if (t.t === "id") {
      if (peek()?.text === "(") {
        const fn = FUNCTIONS[t.text]
        if (!fn) throw new CalcError(`unknown function '${t.text}' (known: ${Object.keys(FUNCTIONS).join(", ")})`)
        pos++
        const args: Array<Value> = []
        if (peek()?.text !== ")") {
          for (;;) {
            args.push(parseLevel(0))
            if (peek()?.text !== ",") break
            pos++
          }
        }
        expect(")")
        return fn(args)
      }
      const c = CONSTANTS[t.text]
      if (!c) throw new CalcError(`unknown name '${t.text}' (known: ${KNOWN_NAMES.join(", ")})`)
      return c
    }
    if (t.text === "(") {
      const v = parseLevel(0)
      expect(")")
      return v
    }
    throw new CalcError(`unexpected '${t.text}'`)
  }
  if (tokens.length === 0) throw new CalcError("empty expression")
  const value = parseLevel(0)
  if (pos < tokens.length) throw new CalcError(`unexpected '${tokens[pos]!.text}' after the expression`)
  return value
}

/** Formats a value as Python's repr does: `14`, `4.0`, `1e+16`, `inf`. */
export const formatValue = (x: Value): string => {
  if (x.kind === "int") return x.v.toString()
  const v = x.v
  if (Number.isNaN(v)) return "nan"
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf"
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0"
  const [mantissa, expText] = v.toExponential().split("e") as [string, string]
  const exp = Number(expText)
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`
  const fixed = String(v)
  return fixed.includes(".") ? fixed : `${fixed}.0`
}
