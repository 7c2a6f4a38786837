/** Python's arithmetic on calculator values: exact integers, correctly rounded floats, Python's errors. */
import { CalcError, float, int, num, type Value } from "./value.ts"

/** An operand of float arithmetic: an int too large for a double is an error, as in Python (not inf). */
const asFloat = (x: Value): number => {
  const v = num(x)
  if (x.kind === "int" && !Number.isFinite(v)) throw new CalcError("int too large to convert to float")
  return v
}

export const bitLength = (n: bigint): number => n.toString(2).length

/** x · 2^e without overflowing or underflowing on the way. */
const scale2 = (x: number, e: number): number => {
  let r = x
  for (; e > 1000; e -= 1000) r *= 2 ** 1000
  for (; e < -1000; e += 1000) r *= 2 ** -1000
  return r * 2 ** e
}

/** n / d · 2^e2 (n, d > 0) rounded once to the nearest double: inf or 0 beyond the double range. */
export const ratioToDouble = (n: bigint, d: bigint, e2: number): number => {
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
export const roundFloat = (x: number, digits: number): number => {
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
export const roundInt = (v: bigint, digits: bigint): bigint => {
  if (digits >= 0n) return v
  const abs = v < 0n ? -v : v
  if (-digits > BigInt(abs.toString().length)) return 0n
  const p = 10n ** -digits
  let q = abs / p
  const twice = 2n * (abs % p)
  if (twice > p || (twice === p && q % 2n === 1n)) q++
  return v < 0n ? -q * p : q * p
}

export const binary = (op: string, a: Value, b: Value): Value => {
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
