import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FilesLive } from "../../src/runtime.ts"
import { parseAllowRule } from "../../src/permission/allow-rule.ts"
import { saveAllowRules } from "../../src/permission/permissions.ts"
import { entryKeyFor, sameToolKey } from "../../src/permission/tool-keys.ts"

describe("which permission key names a tool", () => {
  test("its own name first, then another case or Claude Code's name, then the closest key for several tools", () => {
    expect(entryKeyFor({ Bash: "deny", bash: "allow" }, "bash")).toBe("bash")
    expect(entryKeyFor({ Bash: "deny" }, "bash")).toBe("Bash")
    expect(entryKeyFor({ LS: "deny" }, "list")).toBe("LS")
    expect(entryKeyFor({ WEBFETCH: "deny" }, "fetch")).toBe("WEBFETCH")
    expect(entryKeyFor({ "mcp__gh__*": "ask", mcp__gh: "deny" }, "mcp__gh__x")).toBe("mcp__gh__*")
    expect(entryKeyFor({ mcp__gh: "deny", "mcp__*": "ask" }, "mcp__gh__x")).toBe("mcp__gh")
    expect(entryKeyFor({ mcp__g: "deny" }, "mcp__gh__x")).toBeUndefined()
    expect(entryKeyFor({ mcp__gh__x: "deny" }, "mcp__gh__xy")).toBeUndefined()
    expect(sameToolKey({ "Ba*": "deny" }, "bash")).toBeUndefined()
  })

  test("--allow takes Claude Code's names in any case and its Bash(PREFIX:*) form", () => {
    expect(parseAllowRule("WebFetch")).toEqual({ tool: "fetch" })
    expect(parseAllowRule("ls:src/**")).toEqual({ tool: "list", pattern: "src/**" })
    expect(parseAllowRule("Bash(npm test:*)")).toEqual({ tool: "bash", pattern: "npm test*" })
    expect(parseAllowRule("mcp__Tiny__Echo")).toEqual({ tool: "mcp__tiny__echo" })
  })

  test("an answer 'always' saves into the key already written for the tool, not a second key that would hide it", async () => {
    const root = mkdtempSync(join(tmpdir(), "anvil-keys-"))
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ permission: { Bash: { "rm *": "deny" } } }))
    await Effect.runPromise(saveAllowRules(root, [{ tool: "bash", pattern: "npm test" }]).pipe(Effect.provide(FilesLive)))
    expect(JSON.parse(readFileSync(join(root, "anvil.json"), "utf8")).permission).toEqual({ Bash: { "rm *": "deny", "npm test": "allow" } })
  })
})
