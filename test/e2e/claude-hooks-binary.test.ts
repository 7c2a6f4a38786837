import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines } from "../support/anvil-cli.ts"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { binaryRepo } from "../support/binary-repo.ts"
import { openaiRuns } from "../support/openai-run.ts"
import { writeTree } from "../support/harness.ts"

// Claude Code plugin hooks through the compiled binary in a scripted run against the fake model server:
// `continue: false` ends the turn (its stopReason for the person only), the hooks get what Claude Code sends,
// and a broken hooks.json leaves the rest of its plugin working.
setDefaultTimeout(60_000)

beforeAll(() => void anvilBinary(), 120_000)
const openai = openaiRuns()

/** A repository with a user Claude Code plugin `guard` whose hooks.json is `hooks`. */
const withPlugin = (hooks: unknown, extra: Record<string, string> = {}) => {
  const r = binaryRepo({ "a.txt": "alpha\n" })
  writeTree(join(r.env.HOME, ".config", "anvil", "plugins", "guard"), {
    ".claude-plugin/plugin.json": JSON.stringify({ name: "guard" }),
    "hooks/hooks.json": typeof hooks === "string" ? hooks : JSON.stringify({ hooks }),
    ...extra,
  })
  return r
}

const answer = (json: unknown) => `cat > /dev/null; echo '${JSON.stringify(json)}'`

describe("continue: false from a Claude Code command hook", () => {
  test("PreToolUse: the call does not run, the model is not asked again, stopReason reaches the person and not the model", async () => {
    const r = withPlugin({ PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: answer({ continue: false, stopReason: "budget exhausted", decision: "block", reason: "for the model" }) }] }] })
    const { server, env } = openai([{ tool_calls: [{ name: "bash", arguments: { command: "echo one > one.txt" }, id: "c1" }] }, { text: "never asked" }])
    const run = await runBinary(["run", "--yes", "-f", "stream-json", "go"], { cwd: r.root, env: { ...r.env, ...env } })
    expect(run.code).toBe(0)
    expect(existsSync(join(r.root, "one.txt"))).toBe(false)
    expect(server.requests).toHaveLength(1)
    const lines = jsonLines(run.stdout)
    const stopped = lines.find((l) => l.type === "system" && l.subtype === "hook_stopped")
    expect(stopped).toMatchObject({ message: "budget exhausted", plugin: "guard" })
    // It comes after the call's result, which tells the model (on a later turn) the call was not run, without the reason.
    const result = lines.find((l) => l.type === "user")!
    expect(lines.indexOf(result)).toBeLessThan(lines.indexOf(stopped!))
    expect(JSON.stringify(result.message)).toContain("The Bash call was not run: plugin 'guard' ended the turn.")
    expect(JSON.stringify(result.message)).not.toContain("budget exhausted")
    expect(lines.at(-1)).toMatchObject({ type: "result", subtype: "success", is_error: false, terminal_reason: "hook_stopped", hook_stopped: { plugin: "guard", reason: "budget exhausted" }, permission_denials: [] })

    // Text: the reason on stderr, exit 0.
    const { server: s2, env: env2 } = openai([{ tool_calls: [{ name: "bash", arguments: { command: "echo two > two.txt" }, id: "c2" }] }, { text: "never asked" }])
    const text = await runBinary(["run", "--yes", "go"], { cwd: r.root, env: { ...r.env, ...env2 } })
    expect(text.code).toBe(0)
    expect(text.stderr).toContain("anvil run: plugin 'guard' ended the turn: budget exhausted")
    expect(s2.requests).toHaveLength(1)
  })

  test("PostToolUse: the result stands and the turn ends after it; the hooks get the session, absolute paths and Claude's answer fields", async () => {
    const r = withPlugin({
      PreToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: 'cat > "$CLAUDE_PROJECT_DIR/pre.json"' }] }],
      PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: `cat > "$CLAUDE_PROJECT_DIR/post.json"; echo '${JSON.stringify({ continue: false, stopReason: "review needed" })}'` }] }],
    })
    const { server, env } = openai([{ tool_calls: [{ name: "write", arguments: { path: "src/b.txt", content: "beta\n" }, id: "w1" }] }, { text: "never asked" }])
    const run = await runBinary(["run", "--yes", "-f", "json", "go"], { cwd: r.root, env: { ...r.env, ...env } })
    expect(run.code).toBe(0)
    expect(readFileSync(join(r.root, "src/b.txt"), "utf8")).toBe("beta\n")
    expect(server.requests).toHaveLength(1)
    const result = JSON.parse(run.stdout)
    expect(result).toMatchObject({ subtype: "success", terminal_reason: "hook_stopped", hook_stopped: { plugin: "guard", reason: "review needed" } })
    expect(run.stderr).toContain("anvil run: plugin 'guard' ended the turn: review needed")

    const pre = JSON.parse(readFileSync(join(r.root, "pre.json"), "utf8"))
    expect(pre).toMatchObject({
      session_id: result.session_id,
      cwd: r.root,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_use_id: "w1",
      tool_input: { file_path: join(r.root, "src/b.txt"), content: "beta\n" },
    })
    expect(pre.transcript_path).toEndWith(`${result.session_id}.jsonl`)
    expect(existsSync(pre.transcript_path)).toBe(true)
    const post = JSON.parse(readFileSync(join(r.root, "post.json"), "utf8"))
    expect(post.tool_response).toMatchObject({ type: "create", filePath: join(r.root, "src/b.txt"), content: "beta\n", originalFile: null, status: "success" })
  })
})

describe("a broken hooks.json", () => {
  test("the plugin's other parts load: anvil plugins says loaded with the place, and a run warns and uses its command", async () => {
    const r = withPlugin('{"hooks": {\n  "PreToolUse": [\n    {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]},\n  ]\n}}\n', {
      "commands/greet.md": "---\ndescription: greet\n---\nSay hello to $ARGUMENTS.\n",
    })
    const file = join(r.env.HOME, ".config/anvil/plugins/guard/hooks/hooks.json")
    const list = await runBinary(["plugins"], { cwd: r.root, env: r.env })
    expect(list.stdout).toMatch(/guard\s+user\s+loaded/)
    expect(list.stdout).toContain(`warning: ${file}:4:3: not valid JSON (`)
    expect(list.stdout).toContain("commands: /greet")
    const { server, env } = openai([{ text: "Hello, Ada!" }])
    const run = await runBinary(["run", "/greet Ada"], { cwd: r.root, env: { ...r.env, ...env } })
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(`anvil: plugin 'guard': ${file}:4:3: not valid JSON (`)
    expect(JSON.stringify(server.requests[0]!.body)).toContain("Say hello to Ada.")
  })
})
