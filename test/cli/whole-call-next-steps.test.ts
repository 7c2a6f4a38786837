import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { project, tempDir } from "../support/harness.ts"

/**
 * Errors about the call as a whole (parameters that are no JSON object, a tool name no tool has, a tool that
 * cannot run here) end with a next step like every other error, through the compiled binary; and text a one-string
 * tool took as its parameter, then refused, is that tool's own error (exit 1), not a command line it could not read.
 */

const call = async (root: string, args: ReadonlyArray<string>) => {
  const r = await runBinary(["tool", ...args], { cwd: root, env: { HOME: tempDir("anvil-home-") } })
  const envelope = JSON.parse(r.stdout)
  const text: string = envelope.text
  const step = text.match(/Recommended next step \(token-efficient\):\n\* (.*)/)?.[1] ?? text.match(/\nNext step: (.*)$/)?.[1]
  return { code: r.code, stderr: r.stderr, envelope, step }
}

describe("a next step for errors about the whole call", () => {
  test("parameters that are not a JSON object: the call written as one, with the parameters the tool requires", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const cases: Array<[ReadonlyArray<string>, string]> = [
      [["read", "{not json"], 'Read(path="<correct_value>")'],
      [["read", "[1]"], 'Read(path="<correct_value>")'],
      [["edit", "null"], 'Edit(path="<correct_value>", old_string="<correct_value>", new_string="<correct_value>")'],
      [["multiedit", "42"], 'MultiEdit(path="<correct_value>", edits=[{"old_string":"<correct_value>","new_string":"<correct_value>"}])'],
      // A tool with no required parameter: the call with none.
      [["git_status", "true"], "GitStatus()"],
      // A second JSON argument, and JSON that is no object beside --key flags.
      [["read", '{"path":"a.txt"}', "{}"], 'Read(path="<correct_value>")'],
      [["read", "[1]", "--limit", "2"], 'Read(path="<correct_value>")'],
      // A flag given no value asks for that parameter.
      [["read", "--path"], 'Read(path="<correct_value>")'],
    ]
    for (const [args, step] of cases) {
      const r = await call(root, args)
      expect({ args, code: r.code, error: r.envelope.error.code, step: r.step }).toEqual({ args, code: 2, error: "INVALID_PARAM", step })
    }
  })

  test("an unknown tool: the same call under the name it is close to, else the step in words", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const near = await call(root, ["raed", '{"path":"a.txt","bogus":1}'])
    expect(near.code).toBe(2)
    expect(near.envelope.error.field_errors).toEqual([{ field: "name", message: "unknown tool (did you mean read?)" }])
    // Only the parameters that tool takes are kept.
    expect(near.step).toBe('Read(path="a.txt")')
    const noParams = await call(root, ["git_stats", "{}"])
    expect(noParams.step).toBe("GitStatus()")
    const far = await call(root, ["frobnicate", '{"x":1}'])
    expect(far.code).toBe(2)
    expect(far.envelope.error.field_errors).toEqual([{ field: "name", message: "unknown tool" }])
    expect(far.step).toBe("call one of the available tools named above, by that name, with the parameters it describes.")
  })

  test("task outside an agent session says what to do instead", async () => {
    const r = await call(project({}), ["task", '{"prompt":"x","description":"y"}'])
    expect(r.code).toBe(1)
    expect(r.envelope.error.code).toBe("EXECUTION_ERROR")
    expect(r.step).toBe('do the task with the other tools directly, or give it to the agent: anvil run "<the task>".')
  })
})

describe("a one-string tool's bare text", () => {
  test("taken and then refused by the tool is the tool's error (exit 1), as the same text in an object is", async () => {
    const root = project({})
    for (const expression of ["1/0", "2+", "foo(1)"]) {
      const bare = await call(root, ["calculator", expression])
      const whole = await call(root, ["calculator", JSON.stringify({ expression })])
      expect({ expression, code: bare.code, stderr: bare.stderr }).toEqual({ expression, code: 1, stderr: "" })
      expect(bare.envelope.error).toEqual(whole.envelope.error)
      expect(bare.step).toBe(whole.step)
    }
    expect((await call(root, ["calculator", "6*7"])).envelope.data.result).toBe("42")
  })

  test("text a tool with several parameters cannot take stays a usage error (exit 2)", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const r = await call(root, ["read", "a.txt"])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("anvil tool read: the parameters are not a JSON object")
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("alpha\n")
  })
})
