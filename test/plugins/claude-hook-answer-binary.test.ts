import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, toolResults } from "../support/anvil-cli.ts"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"
import { runBinary } from "../support/binary.ts"
import { openaiRuns } from "../support/openai-run.ts"

const openai = openaiRuns()

/**
 * Through the compiled binary: a Claude Code command hook whose JSON answer anvil cannot use — a refusal written flat
 * instead of inside hookSpecificOutput (as Claude Code, anvil reads only the inner one), a decision word neither knows,
 * output that starts as JSON and does not parse — is reported on stderr with what is wrong, and the call goes on.
 */
describe("a Claude Code hook's answer that anvil cannot use", () => {
  test("is reported, naming the hook and the field, and the rest of the answer and the call go on", async () => {
    const hooks = {
      PreToolUse: [
        { matcher: "Read", hooks: [{ type: "command", command: `echo '{"permissionDecision": "deny", "reason": "no reads"}'` }] },
        { matcher: "Glob", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput": {"permissionDecision": "block"}}'` }] },
        { matcher: "Grep", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput": {"permissionDecision": "deny",}}'` }] },
      ],
      PostToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: `echo '{"hookSpecificOutput": {"additionalContext": 5}, "decision": "block", "reason": "checked"}'` }] }],
    }
    const r = binaryRepo({ "a.txt": "hello\n", ".claude/settings.json": JSON.stringify({ hooks }) })
    expect((await runBinary(["plugins", "trust", "claude-settings"], { cwd: r.root, env: r.env })).code).toBe(0)

    const read = await binaryTool(r, "read", { path: "a.txt" })
    expect(read.envelope.status).toBe("success")
    // The valid part of the PostToolUse answer still counts.
    expect(read.envelope.text).toContain("PostToolUse hook feedback:\nchecked")
    expect(read.stderr).toContain(
      `anvil: plugin 'claude-settings': PreToolUse hook 'echo '{"permissionDecision": "deny", "reason": "no reads"}'' answered JSON with a part anvil cannot use, ignored: permissionDecision is read only inside hookSpecificOutput ({"hookSpecificOutput": {"permissionDecision": …}}), not at the top level`,
    )
    expect(read.stderr).toContain("PostToolUse hook ")
    expect(read.stderr).toContain("answered JSON with a part anvil cannot use, ignored: hookSpecificOutput.additionalContext is 5, not a text")

    const glob = await binaryTool(r, "glob", { pattern: "*" })
    expect(glob.envelope.status).toBe("success")
    expect(glob.stderr).toContain('ignored: hookSpecificOutput.permissionDecision is "block", not "allow", "deny" or "ask"')

    const grep = await binaryTool(r, "grep", { pattern: "hello" })
    expect(grep.envelope.status).toBe("success")
    expect(grep.stderr).toMatch(/PreToolUse hook .* answered JSON with a part anvil cannot use, ignored: its output starts with "\{" but is not valid JSON \(.+\), so none of it was read/)
  }, 60_000)

  test("is reported once per hook for a run, though the hook runs at every call and its usable part still counts", async () => {
    // Each call appends a line, then answers with a usable reason and an unusable additionalContext.
    const command = `echo ran >> hook-calls.txt; echo '{"hookSpecificOutput": {"additionalContext": 5}, "decision": "block", "reason": "checked"}'`
    const flat = `echo '{"permissionDecision": "deny"}'`
    const hooks = {
      PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: flat }] }],
      PostToolUse: [{ matcher: "Read", hooks: [{ type: "command", command }] }],
    }
    const r = binaryRepo({ "a.txt": "hello\n", "b.txt": "bye\n", ".claude/settings.json": JSON.stringify({ hooks }) })
    expect((await runBinary(["plugins", "trust", "claude-settings"], { cwd: r.root, env: r.env })).code).toBe(0)
    const read = (path: string, id: string) => ({ name: "read", arguments: { path }, id })
    const { env } = openai([{ tool_calls: [read("a.txt", "r1"), read("b.txt", "r2")] }, { tool_calls: [read("a.txt", "r3")] }, { text: "Read them." }])
    const run = await runBinary(["run", "-f", "stream-json", "read the files"], { cwd: r.root, env: { ...r.env, ...env } })
    expect(run.code).toBe(0)
    expect(readFileSync(join(r.root, "hook-calls.txt"), "utf8")).toBe("ran\nran\nran\n")
    const results = toolResults(jsonLines(run.stdout))
    expect(results.map((t) => t.envelope.text.includes("PostToolUse hook feedback:\nchecked"))).toEqual([true, true, true])
    const told = (text: string) => run.stderr.split("\n").filter((line) => line.includes(text))
    // One line per hook, each with what is wrong.
    expect(told("hookSpecificOutput.additionalContext is 5, not a text")).toHaveLength(1)
    expect(told(`PreToolUse hook '${flat}' answered JSON with a part anvil cannot use, ignored: permissionDecision is read only inside hookSpecificOutput`)).toHaveLength(1)
  }, 60_000)
})

// hookify (anthropics/claude-code's plugins) refuses with `permissionDecision: "deny"` and says why in `systemMessage`
// alone, and warns with a `systemMessage` and nothing else.
describe("a Claude Code hook's systemMessage", () => {
  test("is told to the person; a refusal without a reason gives it to the model as the reason", async () => {
    const deny = { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" }, systemMessage: "**[block-rm]** Dangerous rm command detected!" }
    const warn = { systemMessage: "**[warn-read]** Reading a.txt" }
    const hooks = {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "command", command: `echo '${JSON.stringify(deny)}'` }] },
        { matcher: "Read", hooks: [{ type: "command", command: `echo '${JSON.stringify(warn)}'` }] },
      ],
    }
    const r = binaryRepo({ "a.txt": "hello\n", ".claude/settings.json": JSON.stringify({ hooks }) })
    expect((await runBinary(["plugins", "trust", "claude-settings"], { cwd: r.root, env: r.env })).code).toBe(0)
    const bash = await binaryTool(r, "bash", { command: "rm -rf nothing" })
    expect(bash.envelope.error?.message).toBe("Blocked by plugin 'claude-settings': **[block-rm]** Dangerous rm command detected!")
    expect(bash.stderr).toContain("anvil: plugin 'claude-settings': PreToolUse hook says: **[block-rm]** Dangerous rm command detected!")
    const read = await binaryTool(r, "read", { path: "a.txt" })
    expect(read.envelope.status).toBe("success")
    expect(read.stderr).toContain("anvil: plugin 'claude-settings': PreToolUse hook says: **[warn-read]** Reading a.txt")
  }, 60_000)
})
