import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { binaryRepo, binaryTool } from "../support/binary-repo.ts"
import { runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"

/**
 * Through the compiled binary: what hooks print is read whole where anvil acts on it, and bounded where it enters
 * the model's context. A Claude Code hook's JSON answer longer than 64 KiB (a whole new input for a large Write, a
 * refusal after a long reason) was cut there, failed to parse, and was ignored: the write went on unchanged and
 * the refusal was lost. A plugin's prompt.system text of megabytes made every request too long for the model.
 */
const stops: Array<() => void> = []
afterAll(() => stops.forEach((s) => s()))

describe("the size of what hooks print", () => {
  test("a long JSON answer is read whole: a large Write's updatedInput is applied and a refusal after 100 KB refuses; past 16 MiB it is said to be too long", async () => {
    const upper = `import json, sys
d = json.load(sys.stdin)
ti = d["tool_input"]
ti["content"] = ti["content"].upper()
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": ti}}))
`
    const refuse = `import json
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no reads: " + "x" * 100000}}))
`
    const hooks = {
      PreToolUse: [
        { matcher: "Write", hooks: [{ type: "command", command: "python3 .claude/hooks/upper.py" }] },
        { matcher: "Read", hooks: [{ type: "command", command: "python3 .claude/hooks/refuse.py" }] },
        { matcher: "Glob", hooks: [{ type: "command", command: "printf '{\"a\": \"'; head -c 17000000 /dev/zero | tr '\\0' 'a'" }] },
      ],
    }
    const r = binaryRepo({
      "a.txt": "hello\n",
      ".claude/settings.json": JSON.stringify({ hooks }),
      ".claude/hooks/upper.py": upper,
      ".claude/hooks/refuse.py": refuse,
    })
    expect((await runBinary(["plugins", "trust", "claude-settings"], { cwd: r.root, env: r.env })).code).toBe(0)

    const content = "abcd".repeat(20_000)
    const write = await binaryTool(r, "write", { path: "big.txt", content })
    expect(write.envelope.status).toBe("success")
    expect(readFileSync(join(r.root, "big.txt"), "utf8")).toBe(content.toUpperCase())
    expect(write.stderr).not.toContain("cannot use")

    const read = await binaryTool(r, "read", { path: "a.txt" })
    expect(read.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(read.envelope.error.message).toStartWith("Blocked by plugin 'claude-settings': no reads: xxx")

    const glob = await binaryTool(r, "glob", { pattern: "*" })
    expect(glob.envelope.status).toBe("success")
    expect(glob.stderr).toContain(`answered JSON with a part anvil cannot use, ignored: its output starts with "{" but goes on past 16 MiB, more than anvil reads of an answer, so none of it was read`)
  }, 60_000)

  test("a plugin's prompt.system text is added up to 64 KiB, the cut said on stderr; the run goes on", async () => {
    const r = binaryRepo({ "a.txt": "hello\n" })
    const plugins = join(r.env.HOME, ".config", "anvil", "plugins")
    mkdirSync(plugins, { recursive: true })
    writeFileSync(
      join(plugins, "chatty.ts"),
      `import { definePlugin } from "anvil/plugin"\nexport default definePlugin({ api: 1, hooks: { "prompt.system": () => "chatty rules: " + "z".repeat(3_000_000) } })\n`,
    )
    const server = fakeOpenAI([{ text: "done" }])
    stops.push(server.stop)
    const env = { ...r.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }
    const run = await runBinary(["run", "--format", "json", "hi"], { cwd: r.root, env })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ subtype: "success", result: "done" })
    expect(run.stderr).toContain(
      "anvil: plugin 'chatty': its prompt.system hook (a Claude Code plugin's SessionStart hooks) gave 3,000,014 characters; the first 65,536 were added to the system prompt and the rest left out",
    )
    const system = JSON.stringify(server.requests[0]!.body.messages[0])
    expect(system).toContain("chatty rules: zzz")
    expect(system).toContain("[2,934,478 more characters from plugin 'chatty' left out]")
    expect(system.length).toBeLessThan(200_000)
  }, 60_000)
})
