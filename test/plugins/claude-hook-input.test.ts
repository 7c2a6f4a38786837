import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeConfig } from "../../src/config/config.ts"
import { hookToolInput, hookToolResponse, structuredPatch } from "../../src/plugins/claude-hook-input.ts"
import { loadPlugins, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { builtinTools, callTool, project, writeTree } from "../support/harness.ts"
import { claudeConfigEnv } from "./claude-config-env.ts"

/**
 * What a Claude Code plugin's command hooks get on stdin: what Claude Code sends (absolute paths, the call's id,
 * Claude's answer fields after the call), so scripts written for Claude Code work unchanged.
 */

describe("the hook input of Claude Code command hooks", () => {
  test("tool_input: path fields absolute, anvil's names kept beside; other tools as they are", () => {
    expect(hookToolInput("write", { path: "src/a.ts", content: "x" }, "/p")).toEqual({ path: "src/a.ts", file_path: "/p/src/a.ts", content: "x" })
    expect(hookToolInput("read", { path: "/p/a.ts", offset: 0 }, "/p")).toEqual({ path: "/p/a.ts", file_path: "/p/a.ts", offset: 1 })
    expect(hookToolInput("grep", { pattern: "x", path: "src" }, "/p")).toMatchObject({ pattern: "x", path: "/p/src" })
    expect(hookToolInput("glob", { pattern: "*.ts" }, "/p")).toEqual({ pattern: "*.ts" })
    expect(hookToolInput("bash", { command: "ls" }, "/p")).toEqual({ command: "ls" })
  })

  test("tool_response: Claude Code's fields for Read, Write, Edit, MultiEdit, Bash, Glob; anvil's text, data, status kept", () => {
    const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
    expect(structuredPatch(diff)).toEqual([{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [" keep", "-old", "+new"] }])
    const result = (data: Record<string, unknown>) => ({ text: "t", data, status: "success" })
    expect(hookToolResponse("read", { path: "a.txt" }, result({ path: "a.txt", content: "     9\tone\n    10\ttwo", start_line: 9, lines_returned: 2, total_lines: 12 }), "/p")).toEqual({
      type: "text",
      file: { filePath: "/p/a.txt", content: "one\ntwo", numLines: 2, startLine: 9, totalLines: 12 },
      ...result({ path: "a.txt", content: "     9\tone\n    10\ttwo", start_line: 9, lines_returned: 2, total_lines: 12 }),
    })
    expect(hookToolResponse("write", { path: "n.txt", content: "hi\n" }, result({ path: "n.txt", created: true, diff: "@@ -0,0 +1 @@\n+hi\n" }), "/p")).toMatchObject({
      type: "create",
      filePath: "/p/n.txt",
      content: "hi\n",
      originalFile: null,
      structuredPatch: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ["+hi"] }],
    })
    expect(hookToolResponse("edit", { path: "a.txt", old_string: "a", new_string: "b" }, result({ path: "a.txt", diff }), "/p")).toMatchObject({
      filePath: "/p/a.txt",
      oldString: "a",
      newString: "b",
      replaceAll: false,
      userModified: false,
    })
    expect(hookToolResponse("bash", { command: "x" }, result({ stdout: "out", stderr: "err", timed_out: true }), "/p")).toMatchObject({
      stdout: "out",
      stderr: "err",
      interrupted: true,
      isImage: false,
    })
    expect(hookToolResponse("glob", { pattern: "*" }, result({ paths: ["a.txt", "b/c.txt"], truncated: false }), "/p")).toMatchObject({
      filenames: ["/p/a.txt", "/p/b/c.txt"],
      numFiles: 2,
    })
    expect(hookToolResponse("list", { path: "." }, result({ entries: [] }), "/p")).toEqual(result({ entries: [] }))
  })

  test("a guard written for Claude Code (it compares file_path with $CLAUDE_PROJECT_DIR) blocks; a formatter hook finds the file", async () => {
    const root = project({ "a.txt": "x\n" })
    const { config, env } = claudeConfigEnv()
    writeTree(join(config, "anvil", "plugins", "team"), {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "team" }),
      "hooks/hooks.json": JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Write|Edit",
              hooks: [{ type: "command", command: `input=$(cat); printf "%s" "$input" > "$CLAUDE_PROJECT_DIR/pre.json"; case "$input" in *"\\"file_path\\":\\"$CLAUDE_PROJECT_DIR/.env\\""*) echo "no writing .env" >&2; exit 2;; esac` }],
            },
          ],
          // As published formatter hooks do: the path from tool_response.filePath, else tool_input.file_path.
          PostToolUse: [{ matcher: "Write", hooks: [{ type: "command", command: `input=$(cat); printf "%s" "$input" > "$CLAUDE_PROJECT_DIR/post.json"; test -f "$(printf "%s" "$input" | sed 's/.*"filePath":"\\([^"]*\\)".*/\\1/')" && echo found >&2 && exit 2` }] }],
        },
      }),
    })
    const problems: Array<string> = []
    const set = await loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: (m) => problems.push(m) })
    const tools = toolsWithPlugins(builtinTools, set, (m) => problems.push(m))

    const blocked = await callTool(root, "write", { path: ".env", content: "SECRET=1\n" }, { tools, env, callId: "w1" })
    expect(blocked.envelope.error).toMatchObject({ code: "PERMISSION_DENIED", message: "Blocked by plugin 'team': no writing .env" })
    expect(existsSync(join(root, ".env"))).toBe(false)
    const pre = JSON.parse(readFileSync(join(root, "pre.json"), "utf8"))
    expect(pre).toEqual({
      session_id: "cli",
      cwd: root,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { path: ".env", file_path: join(root, ".env"), content: "SECRET=1\n" },
      tool_use_id: "w1",
    })

    const written = await callTool(root, "write", { path: "src/new.txt", content: "hi\n" }, { tools, env })
    expect(written.envelope.text).toContain("PostToolUse hook feedback:\nfound")
    const post = JSON.parse(readFileSync(join(root, "post.json"), "utf8"))
    expect(post.tool_response).toMatchObject({ type: "create", filePath: join(root, "src/new.txt"), content: "hi\n", status: "success" })
    expect(problems).toEqual([])
  })
})
