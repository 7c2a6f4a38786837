/**
 * A safe arithmetic evaluator with Python's semantics:
 * integers are exact (bigint), `/` gives a float, `**` binds tighter than a
 * unary minus on its left and groups to the right, `^` is bitwise XOR on
 * integers. No eval: a tokenizer and a precedence-climbing parser.
 */
import { binary } from "./arithmetic.ts"
import { CONSTANTS, FUNCTIONS, iterableArguments, KNOWN_NAMES, type Sequence } from "./functions.ts"
import { tokenize } from "./tokenize.ts"
import { CalcError, float, int, type Value } from "./value.ts"

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
        // Own names only: constructor, __proto__ or toString are names no expression knows, not Object's methods.
        const fn = Object.hasOwn(FUNCTIONS, t.text) ? FUNCTIONS[t.text] : undefined
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
      const c = Object.hasOwn(CONSTANTS, t.text) ? CONSTANTS[t.text] : undefined
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
