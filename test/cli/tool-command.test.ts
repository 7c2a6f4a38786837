import { describe, expect, test } from "bun:test"
import type { CliIO } from "../../src/cli/output.ts"
import { toolCommand } from "../../src/cli/tool-command.ts"
import { parseToolArgs, withStringFlags } from "../../src/cli/tool-args.ts"
import { bigintTool } from "../support/fixture-tools.ts"
import { project } from "../support/harness.ts"

describe("anvil tool: every call ends in an envelope", () => {
  test("a result JSON cannot hold (a BigInt) is that call's INTERNAL_ERROR envelope, not a crash of the command", async () => {
    const root = project()
    for (const meta of [false, true]) {
      let out = ""
      const io: CliIO = { out: (t) => void (out += t), err: () => undefined, readStdin: async () => "", cwd: root, env: {} }
      const code = await toolCommand({ name: "bigint_data", params: {}, text: false, meta }, [bigintTool], io, root)
      expect(code).toBe(1)
      const envelope = JSON.parse(out)
      expect(envelope.status).toBe("error")
      expect(envelope.error.code).toBe("INTERNAL_ERROR")
      expect(envelope.error.message).toContain("BigInt")
    }
  })
})

describe("anvil tool: --key value flags", () => {
  const io: CliIO = { out: () => undefined, err: () => undefined, readStdin: async () => "", cwd: "/", env: {} }

  test("a flag's text stays a string where the tool's parameter is a string; elsewhere it is read as JSON", async () => {
    const { editTool } = await import("../../src/tools/edit.ts")
    const { readTool } = await import("../../src/tools/read.ts")
    const edit = await parseToolArgs(["edit", "--path", "a.txt", "--old_string", "007", "--new_string", "true", "--replace_all", "true"], io)
    expect(withStringFlags(edit, editTool)).toEqual({ path: "a.txt", old_string: "007", new_string: "true", replace_all: true })
    // Through a tool alias and a parameter alias (file_path is read's path).
    const read = await parseToolArgs(["Read", "--file_path=123", "--offset", "2", "--limit=5"], io)
    expect(withStringFlags(read, readTool)).toEqual({ file_path: "123", offset: 2, limit: 5 })
    // JSON given whole is left as it is: a wrong type there is the caller's, and INVALID_PARAM says so.
    const json = await parseToolArgs(["edit", '{"path":"a.txt","old_string":"a","new_string":true}'], io)
    expect(withStringFlags(json, editTool)).toEqual({ path: "a.txt", old_string: "a", new_string: true })
  })

  test("through the command: `--new_string 42` writes the text 42", async () => {
    const { editTool } = await import("../../src/tools/edit.ts")
    const root = project()
    const { writeFileSync, readFileSync } = await import("node:fs")
    writeFileSync(`${root}/a.txt`, "x = 1\n")
    let out = ""
    const here: CliIO = { ...io, out: (t) => void (out += t), cwd: root }
    const args = await parseToolArgs(["edit", "--path", "a.txt", "--old_string", "1", "--new_string", "42"], here)
    expect(await toolCommand(args, [editTool], here, root)).toBe(0)
    expect(JSON.parse(out).status).toBe("success")
    expect(readFileSync(`${root}/a.txt`, "utf8")).toBe("x = 42\n")
  })
})

describe("anvil tool: a command line that cannot be a call is a usage error (exit 2) with an INVALID_PARAM envelope", () => {
  const call = async (argv: Array<string>, root = project()) => {
    let out = ""
    let err = ""
    const io: CliIO = { out: (t) => void (out += t), err: (t) => void (err += t), readStdin: async () => "", cwd: root, env: {} }
    const { readTool } = await import("../../src/tools/read.ts")
    const { editTool } = await import("../../src/tools/edit.ts")
    const code = await toolCommand(await parseToolArgs(argv, io), [readTool, editTool], io, root)
    return { code, err, envelope: JSON.parse(out) }
  }

  test("a flag without a value (at the end, or before another flag) names the flag and how to give one", async () => {
    for (const argv of [["read", "--path"], ["read", "--path", "--offset", "2"], ["Read", "--file_path"]]) {
      const { code, err, envelope } = await call(argv)
      expect(code).toBe(2)
      const flag = argv[1]!
      expect(err).toContain(`anvil tool ${argv[0]}: ${flag} needs a value: ${flag} VALUE, or ${flag}=VALUE`)
      expect(envelope.status).toBe("error")
      expect(envelope.error.code).toBe("INVALID_PARAM")
      expect(envelope.error.field_errors).toEqual([{ field: "path", message: "given on the command line without a value" }])
    }
  })

  test("a boolean parameter given as a bare flag is true, and the call runs", async () => {
    const root = project()
    const { writeFileSync, readFileSync } = await import("node:fs")
    writeFileSync(`${root}/a.txt`, "a a\n")
    const { code, envelope } = await call(["edit", "--path", "a.txt", "--old_string", "a", "--new_string", "b", "--replace_all"], root)
    expect(code).toBe(0)
    expect(envelope.status).toBe("success")
    expect(readFileSync(`${root}/a.txt`, "utf8")).toBe("b b\n")
  })

  test("parameters that are not a JSON object: an array, a number, a boolean, null, a JSON string, text that is not JSON", async () => {
    const cases: Array<[string, string]> = [
      ["[1,2]", "an array"],
      ["42", "a number"],
      ["true", "a boolean"],
      ["null", "null"],
      ['"a.txt x"', "string"],
      ["{not json", "invalid JSON"],
      ["not json", "string"],
    ]
    for (const [given, kind] of cases) {
      const { code, err, envelope } = await call(["edit", given])
      expect(code).toBe(2)
      expect(err).toContain("anvil tool edit: ")
      // A string went to the tool (a one-string tool would take it) and its refusal makes the exit code 2.
      expect(err).toContain(given.startsWith("{") || kind === "string" ? "the parameters are not a JSON object" : `not ${kind}`)
      expect(envelope.error.code).toBe("INVALID_PARAM")
      expect(envelope.error.field_errors[0].field).toBe("(root)")
      expect(envelope.error.field_errors[0].message).toContain(kind)
    }
  })

  test("a second JSON argument, or JSON that is no object beside --key flags, is such an error too, and nothing runs", async () => {
    const root = project()
    const { writeFileSync, readFileSync } = await import("node:fs")
    writeFileSync(`${root}/a.txt`, "a\n")
    const cases: Array<[Array<string>, string, string]> = [
      [["edit", '{"path":"a.txt"}', '{"old_string":"a","new_string":"b"}'], "unexpected argument '{\"old_string\"", "unexpected argument"],
      [["edit", "--path", "a.txt", "--old_string", "a", "--new_string", "b", "extra"], "beside --key flags must be an object", "got a string"],
      [["edit", '["a.txt"]', "--old_string", "a", "--new_string", "b"], "not an array", "got an array"],
    ]
    for (const [argv, said, field] of cases) {
      const { code, err, envelope } = await call(argv, root)
      expect(code).toBe(2)
      expect(err).toContain(`anvil tool edit: `)
      expect(err).toContain(said)
      expect(envelope.status).toBe("error")
      expect(envelope.error.code).toBe("INVALID_PARAM")
      expect(envelope.error.message).toContain(said)
      expect(envelope.error.field_errors).toEqual([{ field: "(root)", message: expect.stringContaining(field) }])
    }
    expect(readFileSync(`${root}/a.txt`, "utf8")).toBe("a\n")
  })

  test("a one-string tool still takes a bare string; a wrong value inside an object stays the tool's error (exit 1)", async () => {
    const root = project()
    const { writeFileSync } = await import("node:fs")
    writeFileSync(`${root}/a.txt`, "hello\n")
    let out = ""
    const io: CliIO = { out: (t) => void (out += t), err: () => undefined, readStdin: async () => "", cwd: root, env: {} }
    const { calculatorTool } = await import("../../src/tools/calculator.ts")
    expect(await toolCommand(await parseToolArgs(["calculator", "6*7"], io), [calculatorTool], io, root)).toBe(0)
    expect(JSON.parse(out).data).toMatchObject({ result: "42" })
    const wrong = await call(["read", '{"path": 1}'], root)
    expect(wrong.code).toBe(1)
    expect(wrong.envelope.error.code).toBe("INVALID_PARAM")
  })
})
