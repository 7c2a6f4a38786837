import { Data } from "effect"

/** A calculator value: an exact integer (bigint) or a double, as Python keeps them apart. */
export type Value = { readonly kind: "int"; readonly v: bigint } | { readonly kind: "float"; readonly v: number }

export class CalcError extends Data.TaggedError("CalcError")<{ readonly message: string }> {
  constructor(message: string) {
    super({ message })
  }
}

export const int = (v: bigint): Value => ({ kind: "int", v })
export const float = (v: number): Value => ({ kind: "float", v })
export const num = (x: Value) => (x.kind === "int" ? Number(x.v) : x.v)

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
