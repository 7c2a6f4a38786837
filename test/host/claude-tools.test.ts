import { describe, expect, test } from "bun:test"
import { anvilName, CLAUDE_TOOLS, claudeName, isClaudeName, toAnvilInput, toClaudeInput } from "../../src/host/claude-tools.ts"
import { builtinTools } from "../support/harness.ts"

describe("Claude tool names at the host's edge", () => {
  test("every mapped anvil tool exists, and names translate both ways", () => {
    const names = new Set(builtinTools.map((t) => t.name))
    for (const t of CLAUDE_TOOLS) {
      expect(names.has(t.anvil)).toBe(true)
      expect(claudeName(t.anvil)).toBe(t.claude)
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

  test("Bash, Edit, Grep and WebFetch fields", () => {
    expect(toAnvilInput("Bash", { command: "ls", timeout: 5000, description: "list", run_in_background: false })).toEqual({ command: "ls", timeout_ms: 5000, description: "list" })
    expect(toClaudeInput("bash", { command: "ls", timeout_ms: 5000 })).toEqual({ command: "ls", timeout: 5000 })
    expect(toAnvilInput("Edit", { file_path: "a", old_string: "x", new_string: "y", replace_all: true })).toEqual({ path: "a", old_string: "x", new_string: "y", replace_all: true })
    expect(toAnvilInput("Grep", { pattern: "x", glob: "*.ts", "-i": true, "-C": 2, head_limit: 10 })).toEqual({ pattern: "x", include: "*.ts", case_sensitive: false, context: 2, max_matches: 10 })
    expect(toAnvilInput("Grep", { pattern: "x" })).toEqual({ pattern: "x", case_sensitive: true })
    expect(toClaudeInput("grep", { pattern: "x", include: "*.ts" })).toEqual({ pattern: "x", glob: "*.ts", "-i": true })
    expect(toAnvilInput("WebFetch", { url: "http://x", prompt: "summarise" })).toEqual({ url: "http://x" })
    expect(toAnvilInput("Task", { description: "d", prompt: "find x", subagent_type: "general-purpose" })).toEqual({ objective: "find x" })
  })
})
