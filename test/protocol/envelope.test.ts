import { describe, expect, test } from "bun:test"
import { envelopeProblems } from "../../src/protocol/envelope.ts"
import { renderHint } from "../../src/protocol/hint.ts"
import { renderErrorText, renderResultText } from "../../src/protocol/render.ts"

const ok = { status: "success", data: {}, text: "x", stats: { time_ms: 1 }, context: { cwd: ".", params_input: {} } }

describe("envelope contract", () => {
  test("accepts a minimal valid envelope, extra stats and context keys included", () => {
    expect(envelopeProblems(ok)).toEqual([])
    expect(envelopeProblems({ ...ok, stats: { time_ms: 1, total: 3, engine: "rg" }, context: { ...ok.context, path_resolved: "a" } })).toEqual([])
  })
  test.each([
    ["an extra top-level key", { ...ok, meta: {} }],
    ["data null", { ...ok, data: null }],
    ["missing time_ms", { ...ok, stats: {} }],
    ["missing context.cwd", { ...ok, context: { params_input: {} } }],
    ["missing params_input", { ...ok, context: { cwd: "." } }],
    ["error on a success", { ...ok, error: { code: "NOT_FOUND", message: "m" } }],
    ["status error without error", { ...ok, status: "error" }],
    ["an unknown error code", { ...ok, status: "error", error: { code: "OOPS", message: "m" } }],
    ["an unknown status", { ...ok, status: "ok" }],
    ["an error with an empty message", { ...ok, status: "error", error: { code: "CONFLICT", message: "" } }],
    ["an error whose message is only blanks", { ...ok, status: "error", error: { code: "CONFLICT", message: " \n" } }],
  ])("rejects %s", (_, value) => {
    expect(envelopeProblems(value).length).toBeGreaterThan(0)
  })
})

describe("model-visible text (header, body, hints layout)", () => {
  const h = { action: "Read", priority: "high" as const, args: { path: "app/main.py", offset: 2, limit: 500 } }
  test("hints render as calls", () => {
    expect(renderHint(h)).toBe('Read(path="app/main.py", offset=2, limit=500)')
  })
  test("a partial result ends with the recommended next steps, a success does not", () => {
    expect(renderResultText("Read: a", "body", "partial", [h])).toBe(
      '# Read: a\n\nbody\n\nRecommended next step (token-efficient):\n* Read(path="app/main.py", offset=2, limit=500)',
    )
    expect(renderResultText("Read: a", "body", "success", [h])).toBe("# Read: a\n\nbody")
  })
  test("an error shows code, message, retryable, field errors and hints", () => {
    const text = renderErrorText(
      "Grep",
      { code: "INVALID_PARAM", message: "invalid regex pattern", field_errors: [{ field: "pattern", message: "unterminated character set" }], retryable: false },
      [{ action: "Grep", priority: "high", args: { pattern: "<correct_value>" } }],
    )
    expect(text).toBe(
      [
        "# Grep Error",
        "",
        "Code: INVALID_PARAM",
        "Message: invalid regex pattern",
        "Retryable: False",
        "",
        "Field errors:",
        "- pattern: unterminated character set",
        "",
        "Recommended next step (token-efficient):",
        '* Grep(pattern="<correct_value>")',
      ].join("\n"),
    )
  })
})
