import { describe, expect, test } from "bun:test"
import { parsePrintFlags } from "../../src/host/print-flags.ts"

describe("Claude print-mode flags", () => {
  test("what the SDK passes parses without errors; unknown flags are only reported", () => {
    const flags = parsePrintFlags(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--max-turns", "3", "--permission-mode", "acceptEdits", "--brand-new-flag"])
    expect(flags).toMatchObject({ outputFormat: "stream-json", inputFormat: "stream-json", maxTurns: 3, permissionMode: "acceptEdits", errors: [] })
    expect(flags.ignored).toEqual(["--brand-new-flag"])
  })
  test("a value an honoured flag cannot take is an error naming the choices, not a silent default", () => {
    const flags = parsePrintFlags(["-p", "hi", "--output-format", "yaml", "--input-format=xml", "--permission-mode", "yolo", "--max-turns", "many"])
    expect(flags.errors).toEqual([
      "--output-format is text, json, stream-json; not 'yaml'",
      "--input-format is text, stream-json; not 'xml'",
      "--permission-mode is default, acceptEdits, plan, bypassPermissions, dontAsk; not 'yolo'",
      "--max-turns needs a positive whole number, not 'many'",
    ])
  })
  test("--tools names the built-in tools in Claude's names; default or an empty list as the SDK writes them", () => {
    expect(parsePrintFlags(["--tools", "Read,Grep,Bash"]).tools).toEqual(["read", "grep", "bash"])
    expect(parsePrintFlags(["--tools=default"]).tools).toBeUndefined()
    expect(parsePrintFlags(["--tools", ""]).tools).toEqual([])
    expect(parsePrintFlags(["--tools", ""]).ignored).toEqual([])
  })
})
