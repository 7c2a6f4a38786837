import { describe, expect, test } from "bun:test"
import { evaluate, formatValue } from "../../src/tools/calculator/evaluate.ts"
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
  ])("%s = %s", (expr, expected) => {
    expect(calc(expr)).toBe(expected)
  })

  test.each([
    ["1/0", "division by zero"],
    ["foo + 1", "unknown name 'foo'"],
    ["bar(1)", "unknown function 'bar'"],
    ["2 +", "unexpected end"],
    ["(1", "expected ')'"],
    ["1.5 ^ 2", "XOR"],
    ["sqrt(-1)", "math domain"],
    ["__import__('os')", "unsupported character"],
    ["", "empty expression"],
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
