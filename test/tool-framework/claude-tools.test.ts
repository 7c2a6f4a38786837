import { describe, expect, test } from "bun:test"
import { Effect, Schema } from "effect"
import { anvilName, callParams, CLAUDE_TOOLS, claudeName, isClaudeName, toAnvilInput, toClaudeCall, toClaudeInput } from "../../src/tool-framework/claude-tools.ts"
import type { Tool } from "../../src/tool-framework/definition.ts"
import { fieldNames } from "../../src/tool-framework/params.ts"
import { builtinTools, callTool, project } from "../support/harness.ts"

describe("Claude tool names at the host's edge", () => {
  test("every mapped anvil tool exists, and names translate both ways", () => {
    const names = new Set(builtinTools.map((t) => t.name))
    for (const t of CLAUDE_TOOLS) {
      expect(names.has(t.anvil)).toBe(true)
      // A second Claude name of the same tool (TaskStop beside KillShell) is understood, not shown.
      if (t.alias !== true) expect(claudeName(t.anvil)).toBe(t.claude)
      else expect(claudeName(t.anvil)).not.toBe(t.claude)
      expect(anvilName(t.claude)).toBe(t.anvil)
      expect(anvilName(t.claude)).toBe(t.anvil)
    }
    expect(claudeName("git_status")).toBe("git_status")
    expect(anvilName("git_status")).toBe("git_status")
    expect(isClaudeName("Read")).toBe(true)
    expect(isClaudeName("read")).toBe(false)
  })

  test("Read: file_path and a 1-based offset become path and lines skipped, and back", () => {
    expect(toAnvilInput("Read", { file_path: "a.ts", offset: 10, limit: 5 })).toEqual({ path: "a.ts", offset: 9, limit: 5 })
    expect(toClaudeInput("read", { path: "a.ts", offset: 9 })).toEqual({ file_path: "a.ts", offset: 10 })
    // anvil's own name keeps anvil's meaning.
    expect(toAnvilInput("read", { path: "a.ts", offset: 10 })).toEqual({ path: "a.ts", offset: 10 })
  })

  test("a model's wrapped Claude name (functions.Read) gets Claude's fields translated and is shown to a host as Read", () => {
    expect(callParams("functions.Read", "read", { file_path: "a.ts", offset: 10 })).toEqual({ path: "a.ts", offset: 9 })
    expect(callParams("functions.read", "read", { path: "a.ts", offset: 10 })).toEqual({ path: "a.ts", offset: 10 })
    expect(toClaudeCall("functions.read", { path: "a.ts" })).toEqual({ name: "Read", input: { file_path: "a.ts" } })
    expect(toClaudeCall("functions.Bash:3", { command: "ls" })).toEqual({ name: "Bash", input: { command: "ls" } })
  })

  test("Bash, Edit, Grep and WebFetch fields", () => {
    expect(toAnvilInput("Bash", { command: "ls", timeout: 5000, description: "list", run_in_background: false })).toEqual({ command: "ls", timeout_ms: 5000, description: "list", run_in_background: false })
    expect(toClaudeInput("bash", { command: "ls", timeout_ms: 5000 })).toEqual({ command: "ls", timeout: 5000 })
    expect(toAnvilInput("Edit", { file_path: "a", old_string: "x", new_string: "y", replace_all: true })).toEqual({ path: "a", old_string: "x", new_string: "y", replace_all: true })
    expect(toAnvilInput("Grep", { pattern: "x", glob: "*.ts", "-i": true, "-C": 2, head_limit: 10 })).toEqual({ pattern: "x", include: "*.ts", case_sensitive: false, context: 2, max_matches: 10 })
    expect(toAnvilInput("Grep", { pattern: "x" })).toEqual({ pattern: "x", case_sensitive: true })
    expect(toClaudeInput("grep", { pattern: "x", include: "*.ts" })).toEqual({ pattern: "x", glob: "*.ts", "-i": true })
    expect(toAnvilInput("WebFetch", { url: "http://x", prompt: "summarise", offset: 10 })).toEqual({ url: "http://x", prompt: "summarise" })
    expect(toClaudeInput("fetch", { url: "http://x", prompt: "summarise" })).toEqual({ url: "http://x", prompt: "summarise" })
    expect(toAnvilInput("Skill", { skill: "greet", args: "Ada" })).toEqual({ name: "greet", args: "Ada" })
    expect(toAnvilInput("Task", { description: "d", prompt: "find x", subagent_type: "general-purpose" })).toEqual({ objective: "find x" })
  })

  test("each tool's `only` fields are exactly Claude's fields anvil's tool has no parameter of that name for", () => {
    for (const t of CLAUDE_TOOLS) {
      const own = fieldNames(builtinTools.find((b) => b.name === t.anvil)!)
      expect([t.claude, [...t.only].sort()]).toEqual([t.claude, t.fields.filter((f) => !own.includes(f)).sort()])
    }
  })

  test("a call under a Claude name in anvil's own fields keeps anvil's meaning; a mixed one keeps anvil's extra fields", () => {
    // As anvil's hints write it: Read(path=…, offset=N) skips N lines.
    expect(toAnvilInput("Read", { path: "a.ts", offset: 10, limit: 5 })).toEqual({ path: "a.ts", offset: 10, limit: 5 })
    expect(toAnvilInput("Grep", { pattern: "x", include: "*.ts", case_sensitive: false })).toEqual({ pattern: "x", include: "*.ts", case_sensitive: false })
    expect(toAnvilInput("Grep", { pattern: "x", "-i": true, include: "*.ts" })).toEqual({ pattern: "x", include: "*.ts", case_sensitive: false })
    expect(toAnvilInput("Read", { file_path: "a.ts", offset: 3, column: 40 })).toEqual({ path: "a.ts", offset: 2, column: 40 })
    // Only the counterpart the name resolved to translates: a plugin's own tool named "Read" keeps its call.
    expect(callParams("Read", "read", { file_path: "a", offset: 2 })).toEqual({ path: "a", offset: 1 })
    expect(callParams("Read", "Read", { file_path: "a", offset: 2 })).toEqual({ file_path: "a", offset: 2 })
    expect(callParams("read", "read", { path: "a", offset: 2 })).toEqual({ path: "a", offset: 2 })
  })

  test("a call as the host sees it: Claude's as written, anvil's under the Claude name with Claude's fields", () => {
    expect(toClaudeCall("Read", { file_path: "a", offset: 2 })).toEqual({ name: "Read", input: { file_path: "a", offset: 2 } })
    expect(toClaudeCall("read", { path: "a", offset: 1 })).toEqual({ name: "Read", input: { file_path: "a", offset: 2 } })
    expect(toClaudeCall("Read", { path: "a", offset: 1 })).toEqual({ name: "Read", input: { file_path: "a", offset: 2 } })
    expect(toClaudeCall("git_status", {})).toEqual({ name: "git_status", input: {} })
    expect(toClaudeCall("todowrite", { todos: [{ id: "1", content: "a", status: "pending" }] }).input).toEqual({ todos: [{ id: "1", content: "a", status: "pending", activeForm: "a" }] })
    expect(toAnvilInput("TodoWrite", { todos: [{ content: "a", status: "pending", activeForm: "Doing a" }] })).toEqual({ todos: [{ content: "a", status: "pending" }] })
  })

  test("the pipeline translates for every caller: Read's 1-based offset, Grep's case-sensitive default, Claude names that are no title", async () => {
    const root = project({ "f.txt": "l1\nl2\nl3\nl4\n" })
    const content = async (name: string, params: unknown) => (await callTool(root, name, params)).envelope.data.content
    expect(await content("Read", { file_path: "f.txt", offset: 2, limit: 1 })).toBe("     2\tl2")
    expect(await content("read", { path: "f.txt", offset: 2, limit: 1 })).toBe("     3\tl3")
    expect(await content("Read", { path: "f.txt", offset: 2, limit: 1 })).toBe("     3\tl3")
    const matches = async (params: unknown) => (await callTool(root, "Grep", params)).envelope.data.total_matches
    expect(await matches({ pattern: "L2" })).toBe(0)
    expect(await matches({ pattern: "L2", "-i": true })).toBe(1)
    expect((await callTool(root, "grep", { pattern: "L2" })).envelope.data.total_matches).toBe(1)
    // A plugin tool that is itself called "Read" gets its call as written.
    let seen: unknown
    const own: Tool = {
      name: "Read",
      title: "Read",
      description: "a plugin's Read",
      parameters: Schema.Struct({ file_path: Schema.String, offset: Schema.Number }),
      run: (p) => Effect.sync(() => ((seen = p), { data: {}, text: "ok" })),
    }
    await callTool(root, "Read", { file_path: "f.txt", offset: 2 }, { tools: [own] })
    expect(seen).toEqual({ file_path: "f.txt", offset: 2 })
  })
})
