/** The functions and constants an expression may name, with Python's math semantics. */
import { binary, bitLength, ratioToDouble, roundFloat, roundInt } from "./arithmetic.ts"
import { CalcError, float, int, num, type Value } from "./value.ts"

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


export const FUNCTIONS: Record<string, (args: Array<Value>) => Value> = {
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

export const CONSTANTS: Record<string, Value> = { pi: float(Math.PI), e: float(Math.E) }

/** A list or tuple literal: only an argument of sum, max and min, as Python's iterables. */
export interface Sequence {
  readonly kind: "sequence"
  readonly items: ReadonlyArray<Value>
}

/** The numbers a function gets: sum([1, 2], 10) as sum(10, 1, 2) (start first, as Python adds), max([1, 2]) as max(1, 2). */
export const iterableArguments = (name: string, args: ReadonlyArray<Value | Sequence>): Array<Value> => {
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
