import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { parsePrintFlags } from "../../src/host/print-flags.ts"
import { tempDir, writeTree } from "../support/harness.ts"

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
    // Bash brings the tools that read and stop its background commands.
    expect(parsePrintFlags(["--tools", "Read,Grep,Bash"]).tools).toEqual(["read", "grep", "bash", "bash_output", "bash_stop"])
    expect(parsePrintFlags(["--tools", "Read"]).tools).toEqual(["read"])
    expect(parsePrintFlags(["--tools=default"]).tools).toBeUndefined()
    expect(parsePrintFlags(["--tools", ""]).tools).toEqual([])
    expect(parsePrintFlags(["--tools", ""]).ignored).toEqual([])
  })
  test("the Python SDK's command line: --system-prompt \"\" keeps anvil's prompt; prompts from files; newer flags with values", () => {
    const py = parsePrintFlags(["--output-format", "stream-json", "--verbose", "--system-prompt", "", "--thinking-display", "summarized", "--task-budget", "5", "--input-format", "stream-json"])
    expect(py.systemPrompt).toBeUndefined()
    // --thinking-display goes with the thinking it shows (none here); a task budget anvil cannot send is refused.
    expect(py.ignored).toEqual([])
    expect(py.thinking).toBeUndefined()
    expect(parsePrintFlags(["--thinking", "adaptive", "--thinking-display", "omitted"]).thinking).toEqual({ display: "omitted" })
    expect(parsePrintFlags(["--max-thinking-tokens", "2048", "--thinking-display=summarized"]).thinking).toEqual({ budgetTokens: 2048, display: "summarized" })
    expect(parsePrintFlags(["--thinking-display", "highlights"]).errors).toEqual(["--thinking-display 'highlights' is only for Claude Code sessions Anthropic hosts; use summarized or omitted"])
    expect(parsePrintFlags(["--thinking-display", "loud"]).errors).toEqual(["--thinking-display is summarized or omitted, not 'loud'"])
    expect(parsePrintFlags(["--debug"]).debug).toEqual({})
    expect(parsePrintFlags(["--debug-file", "d.log"]).debug).toEqual({ file: "d.log" })
    expect(parsePrintFlags(["--verbose"]).debug).toBeUndefined()
    expect(py.errors).toEqual(["--task-budget (the Agent SDK's taskBudget option) is not supported: anvil sends no API task budget; bound the run with maxTurns or maxBudgetUsd"])
    const dir = tempDir("anvil-prompt-files-")
    writeTree(dir, { "system.md": "You review code.\n", "extra.md": "Be brief.\n" })
    const files = parsePrintFlags(["--system-prompt-file", join(dir, "system.md"), "--append-system-prompt-file", join(dir, "extra.md")])
    expect(files).toMatchObject({ systemPrompt: "You review code.\n", appendSystemPrompt: "Be brief.\n", ignored: [], errors: [] })
    expect(parsePrintFlags(["--system-prompt-file", join(dir, "missing.md")]).errors).toEqual([`--system-prompt-file: cannot read ${join(dir, "missing.md")} (ENOENT)`])
  })
  test("--max-thinking-tokens and --thinking (the SDK's thinking option) are acted on; a wrong value is an error", () => {
    expect(parsePrintFlags(["--max-thinking-tokens", "4096"])).toMatchObject({ thinking: { budgetTokens: 4096 }, ignored: [], errors: [] })
    expect(parsePrintFlags(["--thinking=adaptive"])).toMatchObject({ thinking: {}, ignored: [], errors: [] })
    for (const off of [["--thinking=disabled"], ["--max-thinking-tokens", "0"], []]) expect(parsePrintFlags(off).thinking).toBeUndefined()
    expect(parsePrintFlags(["--max-thinking-tokens", "lots"]).errors).toEqual(["--max-thinking-tokens needs a whole number of tokens, not 'lots'"])
    expect(parsePrintFlags(["--thinking", "deep"]).errors).toEqual(["--thinking is adaptive, enabled or disabled; not 'deep'"])
  })
  test("--settings: sandboxed commands run unasked only with sandbox.enabled and autoAllowBashIfSandboxed; other settings are named as not acted on", () => {
    const sandbox = JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true, failIfUnavailable: true } })
    expect(parsePrintFlags(["--settings", sandbox])).toMatchObject({ autoAllowSandboxed: true, ignored: [], errors: [] })
    // Claude Code's default: asked, as any command.
    expect(parsePrintFlags([]).autoAllowSandboxed).toBe(false)
    expect(parsePrintFlags(["--settings", JSON.stringify({ sandbox: { autoAllowBashIfSandboxed: true } })]).autoAllowSandboxed).toBe(false)
    const more = parsePrintFlags(["--settings", JSON.stringify({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true, network: {} }, env: { A: "1" } })])
    expect(more).toMatchObject({ autoAllowSandboxed: true, ignored: ["--settings (sandbox.network, env)"] })
    const dir = writeTree(tempDir(), { "settings.json": sandbox })
    expect(parsePrintFlags(["--settings", join(dir, "settings.json")]).autoAllowSandboxed).toBe(true)
    expect(parsePrintFlags(["--settings", "{not json"]).errors[0]).toContain("--settings is not valid JSON")
    expect(parsePrintFlags(["--settings", join(dir, "missing.json")]).errors).toEqual([`--settings: cannot read ${join(dir, "missing.json")} (ENOENT)`])
    expect(parsePrintFlags(["--settings", dir]).errors).toEqual([`--settings: cannot read ${dir} (it is a folder: name the JSON file in it)`])
  })
})
