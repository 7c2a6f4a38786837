import { describe, expect, test } from "bun:test"
import { evaluate } from "../../src/tools/calculator/evaluate.ts"
import { CalcError, formatValue } from "../../src/tools/calculator/value.ts"
import { callTool, project } from "../support/harness.ts"

const calc = (s: string) => formatValue(evaluate(s))

describe("calculator evaluation (Python semantics)", () => {
  test.each([
    ["2+3*4", "14"],
    ["sqrt(16)", "4.0"],
    ["sin(pi/2)", "1.0"],
    ["7/2", "3.5"],
    ["-2**2", "-4"],
    ["2**3**2", "512"],
    ["2**-1", "0.5"],
    ["2**100", "1267650600228229401496703205376"],
    ["5^3", "6"],
    ["1+2^3", "0"], // ^ binds looser than +
    ["abs(-3)", "3"],
    ["round(2.5)", "2"],
    ["round(3.14159, 2)", "3.14"],
    ["max(1, 5.5, 3)", "5.5"],
    ["min(4, 2)", "2"],
    ["sum(1, 2, 3)", "6"],
    // Ints are compared exactly, with each other and with floats (2**64 and 2**64+1 are one double).
    ["max(2**64, 2**64+1)", "18446744073709551617"],
    ["min(2**64+1, 2**64)", "18446744073709551616"],
    ["max(2**64+1, 18446744073709551616.0)", "18446744073709551617"],
    ["min(2**64-1, 18446744073709551616.0)", "18446744073709551615"],
    ["max(1, 1.0)", "1"],
    ["max(1.0, 1)", "1.0"],
    ["max(10**400, 1e308)", "1" + "0".repeat(400)],
    ["min(-(10**400), -1e308)", "-1" + "0".repeat(400)],
    // An int beyond the double range still has a logarithm, as in Python.
    ["log(10**400)", "921.0340371976182"],
    ["log(2**1100, 2)", "1100.0"],
    ["log(10**400, 10**200)", "1.9999999999999998"],
    // sum, max and min take a list or tuple, as in Python (start first: sum(items, start)); a trailing comma is fine.
    ["sum([1, 2, 3])", "6"],
    ["sum((1, 2, 3))", "6"],
    ["sum([0.1, 0.2, 0.3], 10)", "10.6"],
    ["sum([])", "0"],
    ["max([1, 5, 3])", "5"],
    ["min((4, 2))", "2"],
    ["max((2,))", "2"],
    ["max((1+2)*3, 4)", "9"],
    ["max(1, 2,)", "2"],
    ["sum([2**64, 1])", "18446744073709551617"],
    ["log(e)", "1.0"],
    ["log(8, 2)", "3.0"],
    ["exp(0)", "1.0"],
    ["cos(0)", "1.0"],
    ["tan(0)", "0.0"],
    ["1e16", "1e+16"],
    ["0.1+0.2", "0.30000000000000004"],
    ["1/3", "0.3333333333333333"],
    ["0.00001", "1e-05"],
    ["(1+2)*-3", "-9"],
    // Number literals as Python reads them: one `_` between digits anywhere, `00`, `1.`, `.5`, `1.e5`.
    ["1_000", "1000"],
    ["1_0.5", "10.5"],
    ["3.14_15", "3.1415"],
    ["1e1_0", "10000000000.0"],
    ["0_0", "0"],
    ["00", "0"],
    ["007.5", "7.5"],
    ["1.e5", "100000.0"],
    [".5e-3", "0.0005"],
  ])("%s = %s", (expr, expected) => {
    expect(calc(expr)).toBe(expected)
  })

  test.each([
    ["1/0", "division by zero"],
    ["foo + 1", "unknown name 'foo'"],
    // A function named without its call says how to call it.
    ["abs", "'abs' is a function: call it with its argument, abs(x)"],
    ["sqrt + 1", "'sqrt' is a function"],
    ["bar(1)", "unknown function 'bar'"],
    ["2 +", "unexpected end"],
    ["(1", "expected ')'"],
    ["1.5 ^ 2", "XOR"],
    ["sqrt(-1)", "math domain"],
    ["__import__('os')", "unsupported character"],
    ["", "empty expression"],
    // Literals Python refuses are refused, not read with the odd characters dropped.
    ["1__0", "invalid number '1__0' at position 1: '_' may only stand alone between two digits"],
    ["2 + 1_", "invalid number '1_' at position 5"],
    ["1_.5", "'_' may only stand alone"],
    ["1._5", "'_' may only stand alone"],
    ["1e_5", "'_' may only stand alone"],
    ["01", "leading zeros are not allowed"],
    ["0_1", "leading zeros are not allowed"],
    ["1e", "the exponent has no digits"],
    ["2e+ 1", "the exponent has no digits"],
    // sum() of nothing is an error in Python (sum([]) is 0).
    ["sum()", "sum() needs at least one argument"],
  ])("%s is refused: %s", (expr, reason) => {
    expect(() => evaluate(expr)).toThrow(reason)
  })

  test("deep nesting is a clear error, not the engine's stack overflow", () => {
    expect(() => evaluate("-".repeat(200_000) + "1")).toThrow(new CalcError("the expression is nested too deeply"))
    expect(() => evaluate("(".repeat(200_000) + "1" + ")".repeat(200_000))).toThrow(new CalcError("the expression is nested too deeply"))
  })
})

describe("calculator: Python's answers at the edges of int and float", () => {
  // Each expected value is what python3 prints for the same expression.
  test.each([
    ["10**400/10**399", "10.0"], // true division of big ints is correctly rounded, not inf/inf
    ["(10**30+1)/10**10", "1e+20"],
    ["(2**53+1)/1", "9007199254740992.0"],
    ["-(10**400)/(10**399)", "-10.0"],
    ["2**1100/2**1099", "2.0"],
    ["1/10**400", "0.0"],
    ["round(2.675, 2)", "2.67"], // 2.675 is 2.67499999… as a double
    ["round(0.285, 2)", "0.28"],
    ["round(-0.285, 2)", "-0.28"],
    ["round(0.125, 2)", "0.12"], // an exact tie goes to the even digit
    ["round(0.375, 2)", "0.38"],
    ["round(2.5e-8, 8)", "2e-08"],
    ["round(123.456, 1)", "123.5"],
    ["round(1234.5678, -2)", "1200.0"],
    ["round(1234, -2)", "1200"], // an int stays an int
    ["round(1250, -2)", "1200"],
    ["round(1350, -2)", "1400"],
    ["round(-1250, -2)", "-1200"],
    ["round(7, 3)", "7"],
    ["round(24.0, 7)", "24.0"],
    ["round(-26419.0, -2)", "-26400.0"],
    ["1.05**10", "1.628894626777442"],
    ["0.44684**10", "0.00031733679515618605"], // JavaScript's ** says …8610
    ["(-1.5)**3", "-3.375"],
    ["2**-1074", "5e-324"],
    ["2**1023*2.0", "inf"], // float multiplication overflows to inf in Python too
    // math functions of inf and nan answer by IEEE rules, as Python's math does.
    ["log(1e400)", "inf"],
    ["sqrt(1e400)", "inf"],
    ["exp(1e400)", "inf"],
    ["exp(-1e400)", "0.0"],
    ["log(2, 1e400)", "0.0"],
    ["cos(1e400-1e400)", "nan"],
    ["sqrt(1e400-1e400)", "nan"],
    ["log(1e400-1e400)", "nan"],
  ])("%s = %s", (expr, expected) => {
    expect(calc(expr)).toBe(expected)
  })

  test.each([
    ["2.0**1024", "too large"],
    ["10.0**400", "too large"],
    ["10**400 + 1.0", "int too large to convert to float"],
    ["10**400 * 0.5", "int too large to convert to float"],
    ["2**2000/3**0", "too large for a float"],
    ["round(1e300*1e10)", "cannot convert float infinity to integer"],
    ["sqrt(4, 9)", "sqrt() takes exactly one argument"],
    ["exp(1, 2)", "exp() takes exactly one argument"],
    ["log(8, 2, 1)", "log() takes one or two arguments"],
    ["max([])", "max() arg is an empty sequence"],
    ["max([1, 2], 3)", "max() takes a list or separate numbers, not both"],
    ["sqrt([4])", "a list or tuple is taken only by sum, max and min"],
    ["[1, 2]", "unexpected '['"],
    ["sin(1e400)", "sin() of an infinity (math domain error)"],
    ["tan(-1e400)", "tan() of an infinity (math domain error)"],
    ["sqrt(-1e400)", "math domain error"],
    ["exp(1000)", "exp(): math range error"],
    ["exp(10**400)", "exp(): int too large to convert to float"],
    ["sin(10**400)", "sin(): int too large to convert to float"],
  ])("%s is refused: %s", (expr, reason) => {
    expect(() => evaluate(expr)).toThrow(reason)
  })
})

describe("calculator tool", () => {
  test("accepts `input` and `expression`", async () => {
    const root = project()
    const a = await callTool(root, "python_calculator", { input: "2+3*4" })
    expect(a.envelope.data).toEqual({ expression: "2+3*4", result: "14" })
    expect(a.envelope.text).toBe("# Calculator: 2+3*4\n\nResult: 14")
  })
  test("errors are INVALID_PARAM on the expression field", async () => {
    const { envelope } = await callTool(project(), "calculator", { expression: "1/0" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors).toEqual([{ field: "expression", message: "division by zero" }])
  })
})
