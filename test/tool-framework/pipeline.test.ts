import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { functionTool } from "../../src/tool-framework/registry.ts"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { hint } from "../../src/protocol/hint.ts"
import { toolError } from "../../src/protocol/tool-error.ts"
import { calculatorTool } from "../../src/tools/calculator.ts"
import { assertEnvelope, callTool, project } from "../support/harness.ts"
import { askTool, defectTool, echoLinesTool, hangTool } from "../support/fixture-tools.ts"

const tools = [echoLinesTool, defectTool, hangTool, askTool, calculatorTool]

describe("pipeline: names and parameters", () => {
  test("names resolve case-insensitively, by title and by alias", async () => {
    const root = project()
    for (const name of ["calculator", "CALCULATOR", "Calculator", "python_calculator"]) {
      const { envelope } = await callTool(root, name, { expression: "1+1" }, { tools })
      expect(envelope.data.result).toBe("2")
    }
  })

  test("a name wrapped in a model's calling convention (functions.read, functions.read:0, default_api.read) means the tool inside", async () => {
    const root = project()
    for (const name of ["functions.calculator", "functions.python_calculator:0", "default_api.Calculator", "FUNCTIONS.calc"]) {
      const { envelope, tool } = await callTool(root, name, { expression: "2*3" }, { tools })
      expect(tool?.name).toBe("calculator")
      expect(envelope.data.result).toBe("6")
    }
    // A wrapper around nothing known is still an unknown tool, named as the model wrote it.
    const { envelope } = await callTool(root, "functions.nope", {}, { tools })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("'functions.nope'")
  })

  test("an unknown tool is an INVALID_PARAM envelope naming the available tools", async () => {
    const { envelope, tool } = await callTool(project(), "nope", {}, { tools })
    expect(tool).toBeUndefined()
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.message).toContain("echo_lines")
  })

  test("parameter aliases are accepted and params_input keeps the raw call", async () => {
    const { envelope } = await callTool(project(), "echo_lines", { count: 2 }, { tools })
    expect(envelope.data.lines).toBe(2)
    expect(envelope.context.params_input).toEqual({ count: 2 })
  })

  test("parameters that are not an object say what they are instead (an array is not 'object')", async () => {
    const root = project()
    for (const [params, got] of [[[1], "an array"], [7, "number"], [true, "boolean"]] as const) {
      const { envelope } = await callTool(root, "echo_lines", params, { tools })
      expect(envelope.error?.field_errors).toEqual([{ field: "(root)", message: `expected an object, got ${got}` }])
    }
  })

  test("bad parameters come back as INVALID_PARAM with every field error", async () => {
    const { envelope, meta } = await callTool(project(), "echo_lines", { lines: "x", extra: 1 }, { tools })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    const fields = envelope.error?.field_errors?.map((f) => f.field).sort()
    expect(fields).toEqual(["extra", "lines"])
    expect(meta.error_code).toBe("INVALID_PARAM")
    expect(envelope.text).toContain("Field errors:")
  })

  test("a parameter error names the next step: the same tool with the parameters at fault to give again (unknown ones left out, or only left out)", async () => {
    const root = project()
    const missing = await callTool(root, "read", {})
    expect(missing.envelope.text).toContain('Recommended next step (token-efficient):\n* Read(path="<correct_value>")')
    const bad = await callTool(root, "read", { path: "a.txt", limit: 0, bogus: 1 })
    expect(bad.envelope.text).toContain('* Read(limit=1)')
    expect(bad.envelope.text).not.toContain("bogus=")
    const item = await callTool(root, "multiedit", { path: "a.txt", edits: [{ old_string: "a" }] })
    // A list is asked for as a list, never as a string: the one given, with the item's missing field asked for.
    expect(item.envelope.text).toContain('* MultiEdit(edits=[{"old_string":"a","new_string":"<correct_value>"}])')
    const empty = await callTool(root, "multiedit", { path: "a.txt", edits: [] })
    // A list with no item to mend: one item with the item's required fields.
    expect(empty.envelope.text).toContain('* MultiEdit(edits=[{"old_string":"<correct_value>","new_string":"<correct_value>"}])')
    const onlyUnknown = await callTool(root, "read", { path: "a.txt", bogus: 1 })
    // Nothing at fault but keys the tool does not take: the call again without them.
    expect(onlyUnknown.envelope.text).toContain('Recommended next step (token-efficient):\n* Read(path="a.txt")')
  })

  test("an unknown key inside a list item names what the item accepts, not the top-level parameters", async () => {
    const root = project()
    const { envelope } = await callTool(root, "multiedit", { path: "a.txt", edits: [{ old_string: "a", new_string: "b", bogus: 1 }] })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors).toEqual([{ field: "edits.0.bogus", message: "unknown field (accepted: old_string, new_string, replace_all)" }])
    const top = await callTool(root, "multiedit", { path: "a.txt", edits: [{ old_string: "a", new_string: "b" }], bogus: 1 })
    expect(top.envelope.error?.field_errors).toEqual([{ field: "bogus", message: "unknown parameter (accepted: path, edits, expected_sha256, dry_run)" }])
  })

  test("a tool that takes no parameters names an unknown key as unknown, not with Schema's 'Expected never'", async () => {
    const root = project()
    const { envelope } = await callTool(root, "todoread", { session_id: "x" })
    expect(envelope.error?.code).toBe("INVALID_PARAM")
    expect(envelope.error?.field_errors).toEqual([{ field: "session_id", message: "unknown parameter (this tool takes no parameters)" }])
    expect(envelope.error?.message).not.toContain("never")
  })

  test("keys named like Object's own members (__proto__, constructor, toString) are unknown parameters by their names, never aliases or a prototype", async () => {
    const root = project()
    const call = (json: string) => callTool(root, "write", json)
    const proto = await call('{"__proto__":{"path":"p.txt"},"content":"x"}')
    expect(proto.envelope.error?.field_errors).toEqual([
      { field: "__proto__", message: "unknown parameter (accepted: path, content, expected_sha256, dry_run)" },
      { field: "path", message: "Missing key" },
    ])
    for (const key of ["constructor", "toString", "hasOwnProperty"]) {
      const r = await call(`{"path":"p.txt","content":"x","${key}":{"prototype":{"polluted":1}}}`)
      expect(r.envelope.error?.field_errors).toEqual([{ field: key, message: "unknown parameter (accepted: path, content, expected_sha256, dry_run)" }])
    }
    expect(existsSync(join(root, "p.txt"))).toBe(false)
  })

  test("a JSON string of parameters is decoded; broken JSON is INVALID_PARAM", async () => {
    const root = project()
    expect((await callTool(root, "calculator", '{"expression":"2*3"}', { tools })).envelope.data.result).toBe("6")
    const bad = await callTool(root, "echo_lines", "{lines:", { tools })
    expect(bad.envelope.error?.code).toBe("INVALID_PARAM")
  })

  test("a one-string tool takes a bare string (function registration)", async () => {
    const upper = functionTool("upper", "Upper-cases its input.", (s) => s.toUpperCase())
    const { envelope } = await callTool(project(), "upper", "abc", { tools: [upper] })
    expect(envelope.status).toBe("success")
    expect(envelope.data.output).toBe("ABC")
    const failing = functionTool("bad", "Throws.", () => Promise.reject(new Error("nope")))
    const err = await callTool(project(), "bad", { input: "x" }, { tools: [failing] })
    expect(err.envelope.error?.code).toBe("EXECUTION_ERROR")
  })
})

describe("pipeline: failures never crash", () => {
  test("a defect becomes INTERNAL_ERROR", async () => {
    const { envelope } = await callTool(project(), "boom", {}, { tools })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("INTERNAL_ERROR")
    expect(envelope.error?.message).toContain("kaboom")
  })

  test("a cancelled call is interrupted and returns CANCELLED", async () => {
    const { envelope } = await callTool(project(), "hang", {}, { tools, cancelled: Effect.sleep("20 millis") })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("CANCELLED")
  })

  test("a cancel also stops a hook before the run (a command hook can take a minute): CANCELLED at once, the tool not run", async () => {
    let ran = false
    const hooked = { ...calculatorTool, beforeCall: () => Effect.as(Effect.sleep("8 seconds"), { params: { expression: "1" } }), run: () => Effect.sync(() => ((ran = true), { data: {}, text: "ran" })) }
    const started = performance.now()
    const { envelope } = await callTool(project(), "calculator", { expression: "1" }, { tools: [hooked], cancelled: Effect.sleep("50 millis") })
    expect(envelope.error?.code).toBe("CANCELLED")
    expect(performance.now() - started).toBeLessThan(5_000)
    expect(ran).toBe(false)
  })

  test("time_ms, cwd and params_input are always present", async () => {
    const root = project({ "src/x.txt": "x" })
    const { envelope } = await callTool(root, "calculator", { expression: "1" }, { tools, cwd: join(root, "src") })
    expect(typeof envelope.stats.time_ms).toBe("number")
    expect(envelope.context.cwd).toBe("src")
  })
})

describe("pipeline: permissions", () => {
  test("a tool denied in anvil.json is PERMISSION_DENIED", async () => {
    const { envelope } = await callTool(project(), "calculator", { expression: "1" }, { tools, configOverrides: { permission: { calculator: "deny" } } })
    expect(envelope.error?.code).toBe("PERMISSION_DENIED")
  })
  test("ask consults the front end: refused is PERMISSION_DENIED, approved runs", async () => {
    const refused = await callTool(project(), "asker", {}, { tools, onAsk: () => Effect.succeed(false) })
    expect(refused.envelope.error?.code).toBe("PERMISSION_DENIED")
    const approved = await callTool(project(), "asker", {}, { tools, onAsk: () => Effect.succeed(true) })
    expect(approved.envelope.data.ran).toBe(true)
  })
})

describe("truncation layer", () => {
  const spills = (root: string) => {
    const dir = join(root, ".anvil", "tool-output")
    return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".json")).sort() : []
  }

  test("over-long output is cut by lines, spilled whole, and stays a valid, parseable envelope", async () => {
    const root = project()
    const { envelope, meta } = await callTool(root, "echo_lines", { lines: 2500 }, { tools, callId: "tc_x" })
    expect(envelope.status).toBe("partial")
    const t = envelope.data.truncation as Record<string, unknown>
    expect(envelope.data.truncated).toBe(true)
    expect(t.direction).toBe("head")
    expect(t.max_lines).toBe(2000)
    expect(t.max_bytes).toBe(51200)
    expect(t.original_lines).toBe(2502) // header, blank line, 2500 lines
    expect(t.kept_lines).toBeLessThanOrEqual(2000)
    expect(String(envelope.data.preview).startsWith("# EchoLines\n\nL000000001")).toBe(true)
    // The path is root-relative and the spilled file is the full original envelope.
    const path = String(t.full_output_path)
    expect(path).toMatch(/^\.anvil\/tool-output\/tool_\d{8}_\d{6}_EchoLines\.json$/)
    const full = JSON.parse(readFileSync(join(root, path), "utf8"))
    assertEnvelope(full)
    expect(full.data.lines).toBe(2500)
    expect(full.text.split("\n")).toHaveLength(2502)
    expect(JSON.parse(JSON.stringify(envelope))).toEqual(envelope)
    expect(readFileSync(join(root, ".anvil", "tool-output", ".gitignore"), "utf8")).toBe("*\n")
    // execution_meta says why and suggests reading the spilled file.
    expect(meta.truncation?.reason).toBe("output_spilled")
    expect(meta.tool_call_id).toBe("tc_x")
    // Paging goes to the line-by-line text copy, continuing where the preview stopped.
    const textPath = String(t.full_output_text_path)
    expect(textPath).toBe(path.replace(/\.json$/, ".output.txt"))
    expect(readFileSync(join(root, textPath), "utf8")).toBe(`${full.text}\n`)
    const read = meta.retrieval_hints?.find((h) => h.action === "Read")
    expect(read?.args).toEqual({ path: textPath, offset: t.kept_lines, limit: 200 })
    expect(envelope.text).toContain("Use Read with offset/limit")
    expect(envelope.text).not.toContain("Task")
  })

  test("one line longer than the budget under the header is shown cut, said so, and paged from that line", async () => {
    const { envelope, meta } = await callTool(project(), "echo_lines", { lines: 1, width: 80_000 }, { tools })
    expect(envelope.status).toBe("partial")
    expect(envelope.text).toStartWith("# EchoLines\n\nL0000")
    expect(envelope.text).toContain("showing the first 3 of 3 lines, the last of them cut (51200 of 80013 bytes)")
    expect(meta.retrieval_hints?.find((h) => h.action === "Read")?.args).toMatchObject({ offset: 2 })
  })

  test("over-long output is cut by bytes when the line count is within budget", async () => {
    const root = project()
    const { envelope } = await callTool(root, "echo_lines", { lines: 100, width: 1000 }, { tools })
    const t = envelope.data.truncation as Record<string, number>
    expect(envelope.status).toBe("partial")
    expect(t.original_lines).toBe(102)
    expect(t.kept_bytes).toBeLessThanOrEqual(51200)
  })

  test("output within budget is untouched and nothing is spilled", async () => {
    const root = project()
    const { envelope } = await callTool(root, "echo_lines", { lines: 1998 }, { tools })
    expect(envelope.status).toBe("success")
    expect(envelope.data.truncated).toBeUndefined()
    expect(spills(root)).toEqual([])
  })

  test("context.truncation_skip lets the output through", async () => {
    const root = project()
    const { envelope } = await callTool(root, "echo_lines", { lines: 3000, skip: true }, { tools })
    expect(envelope.status).toBe("success")
    expect(envelope.context.truncation_skip).toBe(true)
    expect(envelope.text.split("\n")).toHaveLength(3002)
    expect(spills(root)).toEqual([])
  })

  test("an error stays an error when truncated", async () => {
    const { envelope } = await callTool(project(), "echo_lines", { lines: 3000, fail: true }, { tools })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(envelope.data.truncated).toBe(true)
  })

  test("a cut keeps the tool's own hints after its own: they lead past what was saved (a page cut at its size limit)", async () => {
    const partialPage = defineTool({
      name: "partial_page",
      title: "PartialPage",
      description: "Test tool: the first part of something longer.",
      parameters: Schema.Struct({}),
      run: () =>
        Effect.succeed({
          status: "partial" as const,
          data: {},
          text: Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join("\n"),
          hints: [hint("WebFetch", "high", { url: "http://example.test/big", max_size_kb: 400 })],
        }),
    })
    const { envelope, meta } = await callTool(project(), "partial_page", {}, { tools: [partialPage] })
    expect(envelope.data.truncated).toBe(true)
    const hints = envelope.text.slice(envelope.text.indexOf("Recommended next step"))
    expect(hints).toMatch(/\* Read\(path="[^"]+", offset=\d+, limit=200\)\n\* Grep\(.*\n\* WebFetch\(url="http:\/\/example.test\/big", max_size_kb=400\)$/)
    expect(meta.retrieval_hints?.filter((h) => h.action === "WebFetch")).toHaveLength(1)
  })

  test("a tool that fails without a message (a plugin's) still gets one naming the tool and the code", async () => {
    const mute = defineTool({
      name: "mute_fail",
      title: "MuteFail",
      description: "Test tool: fails with an empty message.",
      parameters: Schema.Struct({}),
      run: () => Effect.fail(toolError("EXECUTION_ERROR", "")),
    })
    const { envelope } = await callTool(project(), "mute_fail", {}, { tools: [mute] })
    expect(envelope.error).toEqual({ code: "EXECUTION_ERROR", message: "MuteFail failed (EXECUTION_ERROR) without saying why.", retryable: false })
  })

  test("the hint names Task when the agent has one", async () => {
    const { envelope, meta } = await callTool(project(), "echo_lines", { lines: 2500 }, { tools, taskToolAvailable: true })
    expect(envelope.text).toContain("Use Task to have a subagent process the full output file")
    expect(meta.retrieval_hints?.[0]?.action).toBe("Task")
  })

  test("the environment variables set limits, direction and folder", async () => {
    const root = project()
    const env = {
      TOOL_OUTPUT_MAX_LINES: "10",
      TOOL_OUTPUT_MAX_BYTES: "100000",
      TOOL_OUTPUT_TRUNCATE_DIRECTION: "tail",
      TOOL_OUTPUT_DIR: "spill-here",
    }
    const { envelope } = await callTool(root, "echo_lines", { lines: 50 }, { tools, env })
    const t = envelope.data.truncation as Record<string, unknown>
    expect(t.max_lines).toBe(10)
    expect(t.direction).toBe("tail")
    expect(String(envelope.data.preview).split("\n").at(-1)).toBe("L000000050")
    expect(String(t.full_output_path)).toMatch(/^spill-here\/tool_/)
    expect(existsSync(join(root, String(t.full_output_path)))).toBe(true)
  })

  test("anvil.json output settings apply when no environment variable is set", async () => {
    const { envelope } = await callTool(project(), "echo_lines", { lines: 50 }, { tools, configOverrides: { output: { max_lines: 20, direction: "head_tail" } } })
    const t = envelope.data.truncation as Record<string, unknown>
    expect(t.max_lines).toBe(20)
    expect(String(envelope.data.preview)).toContain("lines omitted")
  })

  test("spill names never collide", async () => {
    const root = project()
    const paths = new Set<string>()
    for (let i = 0; i < 4; i++) {
      const { envelope } = await callTool(root, "echo_lines", { lines: 2100 }, { tools })
      paths.add(String((envelope.data.truncation as Record<string, unknown>).full_output_path))
    }
    expect(paths.size).toBe(4)
    expect(spills(root)).toHaveLength(4)
  })
})
