import { describe, expect, test } from "bun:test"
import type { CliIO } from "../../src/cli/output.ts"
import { parseToolArgs, toolCommand, withStringFlags } from "../../src/cli/tool-command.ts"
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
    expect(withStringFlags(edit, [editTool])).toEqual({ path: "a.txt", old_string: "007", new_string: "true", replace_all: true })
    // Through a tool alias and a parameter alias (file_path is read's path).
    const read = await parseToolArgs(["Read", "--file_path=123", "--offset", "2", "--limit=5"], io)
    expect(withStringFlags(read, [readTool])).toEqual({ file_path: "123", offset: 2, limit: 5 })
    // JSON given whole is left as it is: a wrong type there is the caller's, and INVALID_PARAM says so.
    const json = await parseToolArgs(["edit", '{"path":"a.txt","old_string":"a","new_string":true}'], io)
    expect(withStringFlags(json, [editTool])).toEqual({ path: "a.txt", old_string: "a", new_string: true })
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
