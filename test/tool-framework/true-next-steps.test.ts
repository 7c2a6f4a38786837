import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import { defineTool } from "../../src/tool-framework/definition.ts"
import { builtinTools, callTool, project } from "../support/harness.ts"

/**
 * A next step must be true for the case it follows: a list asked for as a list, a right name not asked for again,
 * a file too large for a tool pointed at the tools that take it.
 */

const steps = (text: string): Array<string> => {
  const at = text.indexOf("Recommended next step (token-efficient):\n")
  return at < 0 ? [] : text.slice(at).split("\n").slice(1).filter((l) => l.startsWith("* ")).map((l) => l.slice(2))
}

const outcome = async (root: string, name: string, params: unknown, options: Parameters<typeof callTool>[3] = {}) => {
  const e = (await callTool(root, name, params, options)).envelope
  return { code: e.error?.code, steps: steps(e.text), text: e.text, fields: e.error?.field_errors?.map((f) => f.field) }
}

describe("a parameter asked for again keeps its shape", () => {
  test("lists as lists (of one item with its required fields), objects with their required fields, records with one entry", async () => {
    const root = project({ "f.txt": "a\n" })
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const cases: Array<[string, Record<string, unknown>, string]> = [
      // The decoder's own error (a missing key inside an item).
      ["multiedit", { path: "f.txt", edits: [{ old_string: "a" }] }, 'MultiEdit(edits=[{"old_string":"<correct_value>","new_string":"<correct_value>"}])'],
      // A tool's own check (no hint of its own): the framework's fallback shapes it the same way; "one string or a list" shows the list.
      ["git_add", { paths: [""] }, 'GitAdd(paths=["<correct_value>"])'],
      ["question", { questions: "Which one?" }, 'AskUserQuestion(questions=[{"question":"<correct_value>","header":"<correct_value>","options":[{"label":"<correct_value>"}]}])'],
      ["fetch", { url: "http://127.0.0.1:9/", auth: { type: "digest" } }, 'WebFetch(auth={"type":"basic","username":"<correct_value>","password":"<correct_value>"})'],
      ["fetch", { url: "http://127.0.0.1:9/", headers: { a: 1 } }, 'WebFetch(headers={"<name>":"<correct_value>"})'],
      // Strings stay strings.
      ["read", {}, 'Read(path="<correct_value>")'],
    ]
    for (const [name, params, step] of cases) {
      const r = await outcome(root, name, params)
      expect({ name, params, code: r.code, step: r.steps[0] }).toEqual({ name, params, code: "INVALID_PARAM", step })
    }
  })

  test("a tool with its own JSON Schema (an MCP server's) is shaped from that schema", async () => {
    const tagged = defineTool({
      name: "mcp__docs__tag",
      title: "mcp__docs__tag",
      description: "Tags.",
      parameters: Schema.Struct({ tags: Schema.Array(Schema.String) }),
      jsonSchema: { type: "object", properties: { tags: { type: "array", items: { type: "string" } } }, required: ["tags"] },
      run: () => Effect.succeed({ data: {}, text: "" }),
    })
    const r = await outcome(project({}), "mcp__docs__tag", { tags: "a" }, { tools: [...builtinTools, tagged] })
    expect(r).toMatchObject({ code: "INVALID_PARAM", steps: ['mcp__docs__tag(tags=["<correct_value>"])'] })
  })
})

describe("an empty path is a parameter error, not the project's top folder", () => {
  test("read, write, edit, multiedit and the LSP tools: INVALID_PARAM on path, a listing of the top folder next, nothing written", async () => {
    const root = project({ "f.txt": "a\n" })
    const cases: Array<[string, Record<string, unknown>]> = [
      ["read", { path: "" }],
      ["read", { path: "  " }],
      ["write", { path: "", content: "x" }],
      ["edit", { path: "", old_string: "a", new_string: "b" }],
      ["multiedit", { path: "", edits: [{ old_string: "a", new_string: "b" }] }],
      ["lsp_hover", { path: "", line: 1, character: 1 }],
      ["lsp_diagnostics", { path: "" }],
    ]
    for (const [name, params] of cases) {
      const r = await outcome(root, name, params)
      expect({ name, params, code: r.code, fields: r.fields, step: r.steps[0] }).toEqual({ name, params, code: "INVALID_PARAM", fields: ["path"], step: 'LS(path=".")' })
    }
    expect(readFileSync(join(root, "f.txt"), "utf8")).toBe("a\n")
    expect(existsSync(join(root, " "))).toBe(false)
  })
})

describe("a file too large for a language server: grep or read of that file, not the file named again", () => {
  test("lsp_hover reads around its line; lsp_diagnostics from the start", async () => {
    const root = project({})
    writeFileSync(join(root, "big.py"), "x = 1  # padding padding padding padding padding\n".repeat(180_000))
    const hover = await outcome(root, "lsp_hover", { path: "big.py", line: 40, character: 1 })
    expect(hover.code).toBe("INVALID_PARAM")
    expect(hover.steps).toEqual(['Grep(pattern="<symbol>", path="big.py")', 'Read(path="big.py", offset=29, limit=21)'])
    const diagnostics = await outcome(root, "lsp_diagnostics", { path: "big.py" })
    expect(diagnostics.steps).toEqual(['Grep(pattern="<symbol>", path="big.py")', 'Read(path="big.py")'])
  })
})

describe("load_tools: names the permission rules refuse are not called wrong", () => {
  const deny = { configOverrides: { permission: { git_commit: "deny", fetch: "deny" } } }

  test("only refused names: no call asked again, the next step said in words", async () => {
    const r = await outcome(project({}), "load_tools", { names: ["git_commit"] }, deny)
    expect(r.code).toBe("INVALID_PARAM")
    expect(r.steps).toEqual([])
    expect(r.text).toContain('denied by the rule "git_commit": "deny"')
    expect(r.text.trimEnd().split("\n").pop()).toBe(
      "Next step: go on with the tools you have; the permission rules named above refuse git_commit, and only the user can change them.",
    )
  })

  test("an unknown name beside a refused one: only the unknown one is called unknown, and asked for again as a list", async () => {
    const r = await outcome(project({}), "load_tools", { names: ["fetch", "nosuch"] }, deny)
    expect(r.code).toBe("INVALID_PARAM")
    expect(r.text).toContain("no such tool: nosuch.")
    expect(r.text).not.toContain("no such tool: nosuch, fetch")
    expect(r.text).toContain('Also not loaded, every call would be refused: The \'fetch\' call is denied by the rule "fetch": "deny"')
    expect(r.steps).toEqual(['LoadTools(names=["<correct_value>"])'])
  })
})
