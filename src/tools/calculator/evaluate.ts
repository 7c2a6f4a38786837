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

/** An operand of float arithmetic: an int too large for a double is an error, as in Python (not inf). */
const asFloat = (x: Value): number => {
  const v = num(x)
  if (x.kind === "int" && !Number.isFinite(v)) throw new CalcError("int too large to convert to float")
  return v
}

const bitLength = (n: bigint): number => n.toString(2).length

/** x · 2^e without overflowing or underflowing on the way. */
const scale2 = (x: number, e: number): number => {
  let r = x
  for (; e > 1000; e -= 1000) r *= 2 ** 1000
  for (; e < -1000; e += 1000) r *= 2 ** -1000
  return r * 2 ** e
}

/** n / d · 2^e2 (n, d > 0) rounded once to the nearest double: inf or 0 beyond the double range. */
const ratioToDouble = (n: bigint, d: bigint, e2: number): number => {
  // A quotient of 65+ bits with a sticky bit for any remainder rounds to the same double as the exact one.
  const shift = bitLength(d) - bitLength(n) + 66
  const [num, den] = shift >= 0 ? [n << BigInt(shift), d] : [n, d << BigInt(-shift)]
  let q = num / den
  if (num % den !== 0n) q |= 1n
  return scale2(Number(q), e2 - shift)
}

/** int / int as Python computes it: the correctly rounded quotient, however large the operands. */
const trueDivide = (a: bigint, b: bigint): number => {
  const negative = a < 0n !== b < 0n
  const n = a < 0n ? -a : a
  const d = b < 0n ? -b : b
  const LIMIT = 2n ** 53n
  if (n <= LIMIT && d <= LIMIT) return Number(a) / Number(b)
  if (n === 0n) return negative ? -0 : 0
  const r = ratioToDouble(n, d, 0)
  if (!Number.isFinite(r)) throw new CalcError("integer division result too large for a float")
  return negative ? -r : r
}

/** A finite, positive double's exact value: mantissa · 2^exponent. */
const decompose = (x: number): [bigint, number] => {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const bits = view.getBigUint64(0)
  const biased = Number((bits >> 52n) & 0x7ffn)
  const fraction = bits & ((1n << 52n) - 1n)
  return biased === 0 ? [fraction, -1074] : [fraction | (1n << 52n), biased - 1075]
}

/**
 * x ** k for a whole k, correctly rounded from the exact power (the C pow Python calls is; repeated
 * multiplication, which JavaScript's ** does for whole exponents, drifts by several units in the last place).
 */
const wholePower = (x: number, k: number): number => {
  if (x === 0 || !Number.isFinite(x) || Math.abs(k) > 4096) return x ** k
  const [m, e] = decompose(Math.abs(x))
  const n = Math.abs(k)
  const exact = m ** BigInt(n)
  const r = k >= 0 ? ratioToDouble(exact, 1n, e * n) : ratioToDouble(1n, exact, -e * n)
  return x < 0 && n % 2 === 1 ? -r : r
}

/** Python's round(x, ndigits) of a float: half-even on the double's exact decimal value. */
const roundFloat = (x: number, digits: number): number => {
  if (!Number.isFinite(x) || x === 0 || digits > 100 || (digits >= 0 && Number.isInteger(x))) return x
  const abs = Math.abs(x)
  // Exact: an integral double through BigInt; otherwise (|x| < 2^53) toFixed gives the exact expansion to 100 places.
  const [whole, frac = ""] = Number.isInteger(abs) ? [BigInt(abs).toString()] : abs.toFixed(100).split(".")
  const all = whole! + frac
  const cut = whole!.length + digits
  if (cut < 0) return x < 0 ? -0 : 0
  const kept = all.slice(0, cut)
  const rest = all.slice(cut)
  const lastOdd = kept.length > 0 && Number(kept[kept.length - 1]) % 2 === 1
  const up = rest[0] !== undefined && (rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) || lastOdd)))
  const n = BigInt(kept === "" ? "0" : kept) + (up ? 1n : 0n)
  const r = Number(`${n}e${-digits}`)
  if (!Number.isFinite(r)) throw new CalcError("rounded value too large to represent")
  return x < 0 ? -r : r
}

/** round(int, ndigits) for a negative ndigits: half-even to a multiple of 10^-ndigits, still an int. */
const roundInt = (v: bigint, digits: bigint): bigint => {
  if (digits >= 0n) return v
  const abs = v < 0n ? -v : v
  if (-digits > BigInt(abs.toString().length)) return 0n
  const p = 10n ** -digits
  let q = abs / p
  const twice = 2n * (abs % p)
  if (twice > p || (twice === p && q % 2n === 1n)) q++
  return v < 0n ? -q * p : q * p
}

type Token = { t: "num"; text: string } | { t: "id"; text: string } | { t: "op"; text: string }

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

const tokenize = (src: string): Array<Token> => {
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

const binary = (op: string, a: Value, b: Value): Value => {
  if (op === "^") {
    if (a.kind !== "int" || b.kind !== "int") throw new CalcError("'^' is bitwise XOR and needs integers (use ** for powers)")
    return int(a.v ^ b.v)
  }
  if (op === "/") {
    if (num(b) === 0) throw new CalcError("division by zero")
    return float(a.kind === "int" && b.kind === "int" ? trueDivide(a.v, b.v) : asFloat(a) / asFloat(b))
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
      return float(wholePower(asFloat(a), asFloat(b)))
    }
  }
  const x = asFloat(a)
  const y = asFloat(b)
  if (op === "+") return float(x + y)
  if (op === "-") return float(x - y)
  if (op === "*") return float(x * y)
  if (x === 0 && y < 0) throw new CalcError("0 cannot be raised to a negative power")
  if (x < 0 && !Number.isInteger(y)) throw new CalcError("a negative number cannot be raised to a fractional power")
  const power = Number.isInteger(y) ? wholePower(x, y) : x ** y
  // Python raises OverflowError where a finite power overflows (float multiplication alone gives inf there too).
  if (!Number.isFinite(power) && Number.isFinite(x) && Number.isFinite(y)) throw new CalcError("'**' result too large for a float (Numerical result out of range)")
  return float(power)
}

/** A math function's argument as a float: inf and nan pass (Python's math answers them by IEEE rules), an int past the float range does not. */
const toFloat = (name: string, x: Value) => {
  const v = num(x)
  if (x.kind === "int" && !Number.isFinite(v)) throw new CalcError(`${name}(): int too large to convert to float`)
  return v
}

/** sin, cos, tan: of an infinity there is no value (Python's "math domain error"); of nan, nan. */
const trig = (name: string, fn: (v: number) => number) => (args: Array<Value>) => {
  const v = toFloat(name, one(name, args))
  if (v === Infinity || v === -Infinity) throw new CalcError(`${name}() of an infinity (math domain error)`)
  return float(fn(v))
}


const FUNCTIONS: Record<string, (args: Array<Value>) => Value> = {
  abs: ([x, ...rest]) => {
    if (!x || rest.length) throw new CalcError("abs() takes exactly one argument")
    return x.kind === "int" ? int(x.v < 0n ? -x.v : x.v) : float(Math.abs(x.v))
  },
  round: ([x, d, ...rest]) => {
    if (!x || rest.length) throw new CalcError("round() takes one or two arguments")
    if (d === undefined) {
      if (x.kind === "int") return x
      if (!Number.isFinite(x.v)) throw new CalcError(`cannot convert float ${Number.isNaN(x.v) ? "NaN" : "infinity"} to integer`)
      return int(BigInt(roundFloat(x.v, 0)))
    }
    if (d.kind !== "int") throw new CalcError("round(): ndigits must be an integer")
    if (x.kind === "int") return int(roundInt(x.v, d.v))
    return float(roundFloat(x.v, d.v > 1000n ? 1000 : d.v < -1000n ? -1000 : Number(d.v)))
  },
  max: (args) => extreme(args, "max", (x, best) => compare(x, best) > 0),
  min: (args) => extreme(args, "min", (x, best) => compare(x, best) < 0),
  sum: (args) => {
    if (args.length === 0) throw new CalcError("sum() needs at least one argument: a list, or the numbers to add")
    return args.reduce((acc, x) => binary("+", acc, x), int(0n))
  },
  sqrt: (args) => {
    const v = toFloat("sqrt", one("sqrt", args))
    if (v < 0) throw new CalcError("sqrt() of a negative number (math domain error)")
    return float(Math.sqrt(v))
  },
  sin: trig("sin", Math.sin),
  cos: trig("cos", Math.cos),
  tan: trig("tan", Math.tan),
  log: ([x, base, ...rest]) => {
    if (!x || rest.length) throw new CalcError("log() takes one or two arguments")
    const v = naturalLog(x)
    if (base === undefined) return float(v)
    const b = naturalLog(base)
    if (b === 0) throw new CalcError("log(): invalid base (math domain error)")
    return float(v / b)
  },
  exp: (args) => {
    const v = toFloat("exp", one("exp", args))
    const r = Math.exp(v)
    // Only a finite argument overflows: exp(inf) is inf, exp(nan) nan, as in Python.
    if (!Number.isFinite(r) && Number.isFinite(v)) throw new CalcError("exp(): math range error")
    return float(r)
  },
}

/** log(x) as Python's math.log takes it: an int beyond the double range by its mantissa and exponent, not as inf. */
const naturalLog = (x: Value): number => {
  if (num(x) <= 0) throw new CalcError("log() of a non-positive number (math domain error)")
  if (x.kind === "float" || Number.isFinite(num(x))) return Math.log(toFloat("log", x))
  const e = bitLength(x.v)
  return Math.log(ratioToDouble(x.v, 1n, -e)) + Math.LN2 * e
}

/** Python's ordering of two numbers: exact, also between an int and a float (no rounding of the int). */
const compare = (a: Value, b: Value): number => {
  if (a.kind === "int" && b.kind === "int") return a.v < b.v ? -1 : a.v > b.v ? 1 : 0
  if (a.kind === "float" && b.kind === "float") return a.v < b.v ? -1 : a.v > b.v ? 1 : 0
  const [i, f, sign] = a.kind === "int" ? [a.v, b.v as number, 1] : [b.v as bigint, a.v, -1]
  if (Number.isNaN(f)) return 0
  if (!Number.isFinite(f)) return f > 0 ? -sign : sign
  const floor = BigInt(Math.floor(f))
  const order = i < floor ? -1 : i > floor ? 1 : Number.isInteger(f) ? 0 : -1
  return order * sign
}

const one = (name: string, args: Array<Value>): Value => {
  if (args.length !== 1) throw new CalcError(`${name}() takes exactly one argument`)
  return args[0]!
}

const extreme = (args: Array<Value>, name: string, better: (x: Value, best: Value) => boolean): Value => {
  if (args.length === 0) throw new CalcError(`${name}() needs at least one argument`)
  return args.reduce((best, x) => (better(x, best) ? x : best))
}

const CONSTANTS: Record<string, Value> = { pi: float(Math.PI), e: float(Math.E) }

/** A list or tuple literal: only an argument of sum, max and min, as Python's iterables. */
interface Sequence {
  readonly kind: "sequence"
  readonly items: ReadonlyArray<Value>
}

/** The numbers a function gets: sum([1, 2], 10) as sum(10, 1, 2) (start first, as Python adds), max([1, 2]) as max(1, 2). */
const iterableArguments = (name: string, args: ReadonlyArray<Value | Sequence>): Array<Value> => {
  const [first, ...rest] = args
  if (first?.kind === "sequence" && (name === "sum" || name === "max" || name === "min")) {
    if (name !== "sum" && rest.length > 0) throw new CalcError(`${name}() takes a list or separate numbers, not both`)
    if (name === "sum" && rest.length > 1) throw new CalcError("sum() takes a list and at most a start value")
    const start = rest[0]
    if (start?.kind === "sequence") throw new CalcError("sum(): the start value must be a number")
    if (name === "max" || name === "min") {
      if (first.items.length === 0) throw new CalcError(`${name}() arg is an empty sequence`)
    }
    return name === "sum" ? [start ?? int(0n), ...first.items] : [...first.items]
  }
  return args.map((a) => {
    if (a.kind === "sequence") throw new CalcError(`${name}() takes numbers; a list or tuple is taken only by sum, max and min`)
    return a
  })
}

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
  // A list or tuple, which Python's sum, max and min take: [1, 2, 3] or (1, 2, 3).
  const parseSequence = (close: string): Sequence => {
    pos++
    const items: Array<Value> = []
    while (peek()?.text !== close) {
      items.push(parseLevel(0))
      if (peek()?.text !== ",") break
      pos++
    }
    expect(close)
    return { kind: "sequence", items }
  }
  // One argument of a call: a number, or a list or tuple literal; `(1+2)*3` stays a number.
  const parseArgument = (): Value | Sequence => {
    const t = peek()
    if (t?.text === "[") return parseSequence("]")
    if (t?.text === "(") {
      const start = pos
      pos++
      if (peek()?.text === ")") return (pos--, parseSequence(")"))
      parseLevel(0)
      const tuple = peek()?.text === ","
      pos = start
      if (tuple) return parseSequence(")")
    }
    return parseLevel(0)
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
        const args: Array<Value | Sequence> = []
        if (peek()?.text !== ")") {
          for (;;) {
            args.push(parseArgument())
            if (peek()?.text !== ",") break
            pos++
            // A trailing comma, as Python allows: max(1, 2,)
            if (peek()?.text === ")") break
          }
        }
        expect(")")
        return fn(iterableArguments(t.text, args))
      }
      const c = CONSTANTS[t.text]
      // A function named without its call: say how to call it rather than that it is unknown.
      if (!c && Object.hasOwn(FUNCTIONS, t.text)) throw new CalcError(`'${t.text}' is a function: call it with its argument, ${t.text}(x)`)
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
  let value: Value
  try {
    value = parseLevel(0)
  } catch (e) {
    // The engine's own limits, said as the calculator's (Python refuses such input too, with its own words).
    if (e instanceof RangeError) throw new CalcError(/stack/i.test(e.message) ? "the expression is nested too deeply" : `the result is too large (${e.message})`)
    throw e
  }
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
