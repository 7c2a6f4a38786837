import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { query, type SDKMessage, type SDKUserMessage } from "@anthropic-ai/claude-agent-sdk"
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary } from "../support/binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"
import { base, collect, model, resultOf, stopServers, taskTurns } from "./sdk-support.ts"

// Programs written for the Claude Agent SDK drive the compiled anvil unchanged: pathToClaudeCodeExecutable is
// the only option that differs, and the model is a fake OpenAI-compatible server on 127.0.0.1.
setDefaultTimeout(60_000)

afterAll(stopServers)
beforeAll(() => void anvilBinary(), 120_000)

/** Whether a process whose command line holds `marker` is running. */
const runningProcess = (marker: string): boolean => {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim() !== ""
  } catch {
    return false
  }
}

/** Streaming input of two user messages, "one" and "two"; the second is sent once `release` is called. */
const twoPrompts = () => {
  let release: () => void = () => {}
  const second = new Promise<void>((r) => (release = r))
  async function* prompts(): AsyncGenerator<SDKUserMessage> {
    yield { type: "user", message: { role: "user", content: "one" }, parent_tool_use_id: null, session_id: "" }
    await second
    yield { type: "user", message: { role: "user", content: "two" }, parent_tool_use_id: null, session_id: "" }
  }
  return { prompts: prompts(), release: () => release() }
}

describe("the Claude Agent SDK drives anvil", () => {
  test("a plain answer: system/init, assistant, result with the session id", async () => {
    const root = project({})
    const { env } = model([{ text: "Hello from anvil." }])
    const messages = await collect(query({ prompt: "say hello", options: { ...base(root, env), includePartialMessages: true } }))
    const deltas = messages.flatMap((m: any) => (m.type === "stream_event" && m.event.type === "content_block_delta" ? [m.event.delta.text] : []))
    expect(deltas.join("")).toBe("Hello from anvil.")
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as Extract<SDKMessage, { type: "system"; subtype: "init" }>
    expect(init).toBeDefined()
    expect(init.tools).toContain("Bash")
    expect(init.tools).toContain("Read")
    const result = resultOf(messages)
    expect(result.subtype).toBe("success")
    expect((result as { result: string }).result).toBe("Hello from anvil.")
    expect(result.session_id).toBe(init.session_id)
    for (const m of messages) expect(typeof (m as { uuid?: string }).uuid).toBe("string")
  })

  test("canUseTool: a denial reaches the model and is listed; allow with updatedInput runs the changed input", async () => {
    const root = project({})
    const { env } = model([
      { tool_calls: [{ name: "bash", arguments: { command: "echo one > one.txt" }, id: "c1" }] },
      { tool_calls: [{ name: "bash", arguments: { command: "echo two > two.txt" }, id: "c2" }] },
      { text: "Done." },
    ])
    const asked: Array<{ tool: string; input: Record<string, unknown> }> = []
    const messages = await collect(
      query({
        prompt: "make files",
        options: {
          ...base(root, env),
          canUseTool: async (tool, input) => {
            asked.push({ tool, input })
            if (String(input.command).includes("one")) return { behavior: "deny", message: "not that one" }
            return { behavior: "allow", updatedInput: { ...input, command: "echo changed > changed.txt" } }
          },
        },
      }),
    )
    expect(asked.map((a) => a.tool)).toEqual(["Bash", "Bash"])
    expect(asked[0]!.input.command).toBe("echo one > one.txt")
    expect(existsSync(join(root, "one.txt"))).toBe(false)
    expect(existsSync(join(root, "two.txt"))).toBe(false)
    expect(readFileSync(join(root, "changed.txt"), "utf8")).toBe("changed\n")
    const result = resultOf(messages) as { permission_denials: Array<{ tool_name: string; tool_input: Record<string, unknown> }> }
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(["Bash"])
    expect(result.permission_denials[0]!.tool_input.command).toBe("echo one > one.txt")
    const denial = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "c1") as any
    expect(String(denial.content)).toContain("not that one")
  })

  test("canUseTool's updatedPermissions: the suggested rule approves the same command for the session; setMode switches the mode", async () => {
    const root = project({})
    const { env } = model([
      { tool_calls: [{ name: "bash", arguments: { command: "echo one >> log.txt" }, id: "c1" }] },
      { tool_calls: [{ name: "bash", arguments: { command: "echo one >> log.txt" }, id: "c2" }] },
      { tool_calls: [{ name: "bash", arguments: { command: "echo two >> log.txt" }, id: "c3" }] },
      { tool_calls: [{ name: "Write", arguments: { file_path: "w.txt", content: "w" }, id: "w1" }] },
      { text: "Done." },
    ])
    const asked: Array<{ tool: string; suggestions: unknown }> = []
    await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          canUseTool: async (tool, input, { suggestions }) => {
            asked.push({ tool, suggestions })
            const updatedPermissions = String(input.command).includes("two") ? [{ type: "setMode" as const, mode: "acceptEdits" as const, destination: "session" as const }] : suggestions
            return { behavior: "allow", updatedInput: input, ...(updatedPermissions ? { updatedPermissions } : {}) }
          },
        },
      }),
    )
    expect(asked.map((a) => a.tool)).toEqual(["Bash", "Bash"])
    expect(asked[0]!.suggestions).toEqual([{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "echo one >> log.txt" }], behavior: "allow", destination: "session" }])
    expect(readFileSync(join(root, "log.txt"), "utf8")).toBe("one\none\ntwo\n")
    expect(readFileSync(join(root, "w.txt"), "utf8")).toBe("w")
  })

  test("a model calling Claude's tools with Claude's fields gets Claude's meanings: Read's 1-based offset, Grep's -i", async () => {
    const root = project({ "a.txt": "l1\nl2\nHello\n" })
    const { env } = model([
      { tool_calls: [{ name: "Read", arguments: { file_path: "a.txt", offset: 2, limit: 1 }, id: "r" }, { name: "Grep", arguments: { pattern: "hello", "-i": true, path: "." }, id: "g" }] },
      { tool_calls: [{ name: "Grep", arguments: { pattern: "hello", path: "." }, id: "g2" }, { name: "Bash", arguments: { command: "sleep 5", timeout_ms: 300 }, id: "b2" }] },
      { text: "Done." },
    ])
    const messages = await collect(query({ prompt: "go", options: { ...base(root, env), permissionMode: "bypassPermissions" } }))
    const results = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])) as Array<any>
    const text = (id: string) => String(results.find((b) => b.tool_use_id === id).content)
    expect(text("r")).toContain("2\tl2")
    expect(text("r")).not.toContain("Hello")
    expect(results.find((b) => b.tool_use_id === "g").is_error).toBe(false)
    expect(text("g")).toContain("3: Hello")
    // Without -i, Claude's Grep is case-sensitive.
    expect(text("g2")).not.toContain("3: Hello")
    // A field in anvil's own name under a Claude name is kept (the 300 ms limit stops the sleep).
    expect(text("b2")).toContain("TIMEOUT")
  })

  test("CLAUDE.md joins AGENTS.md as project instructions, unless settingSources leaves out project", async () => {
    const root = project({ "AGENTS.md": "AGENTS-MARK: run make test.\n", "CLAUDE.md": "CLAUDE-MARK: answer briefly.\n", ".claude/CLAUDE.md": "DOT-CLAUDE-MARK\n" })
    const { env, server } = model([{ text: "a" }, { text: "b" }])
    await collect(query({ prompt: "go", options: base(root, env) }))
    await collect(query({ prompt: "go", options: { ...base(root, env), settingSources: ["user"] } }))
    const system = (i: number) => JSON.stringify(server.requests[i]!.body.messages[0])
    expect(system(0)).toContain("Project instructions (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md)")
    for (const mark of ["AGENTS-MARK", "CLAUDE-MARK", "DOT-CLAUDE-MARK"]) expect(system(0)).toContain(mark)
    expect(system(1)).toContain("AGENTS-MARK")
    expect(system(1)).not.toContain("CLAUDE-MARK")
  })

  test("the program's agents are subagents the Task tool runs, with their prompt and only their tools", async () => {
    const root = project({ "a.txt": "one two three\n" })
    const { env, server } = model(taskTurns("word-counter", "3 words", "a.txt has 3 words."))
    const agents = { "word-counter": { description: "Counts the words of a file", prompt: "You count words. COUNTER-MARK", tools: ["Read", "Grep"] } }
    const messages = await collect(query({ prompt: "how many words?", options: { ...base(root, env), agents } }))
    expect(JSON.stringify(server.requests[0]!.body.messages[0])).toContain("- word-counter: Counts the words of a file")
    const sub = server.requests[1]!.body
    expect(JSON.stringify(sub.messages[0])).toContain("COUNTER-MARK")
    expect(sub.tools.map((t: any) => t.function.name).filter((n: string) => n !== "load_tools").sort()).toEqual(["grep", "read"])
    const result = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "t1") as any
    expect(String(result.content)).toContain("3 words")
    expect((resultOf(messages) as any).result).toBe("a.txt has 3 words.")
    expect((messages.find((m) => m.type === "system" && m.subtype === "init") as any).agents).toEqual(["explore", "word-counter"])
  })

  test.each(["argv", "initialize"] as const)("the program's plugins (plugins: [{type: 'local'}], pluginDelivery %s) load for the session: a Claude Code plugin's hook blocks a call", async (pluginDelivery) => {
    const root = project({})
    const plugin = tempDir("anvil-sdk-plugin-")
    writeTree(plugin, {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "guard" }),
      "hooks/hooks.json": JSON.stringify({
        hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: 'grep -q "sudo" && { echo "no sudo here" >&2; exit 2; }; exit 0' }] }] },
      }),
    })
    const { env } = model([{ tool_calls: [{ name: "bash", arguments: { command: "sudo ls" }, id: "b1" }] }, { text: "Blocked." }])
    const q = query({ prompt: "go", options: { ...base(root, env), permissionMode: "bypassPermissions", plugins: [{ type: "local", path: plugin }], pluginDelivery } })
    // Sent in initialize (the SDK then starts anvil with --await-initialize and no --plugin-dir), they are said to be loaded.
    if (pluginDelivery === "initialize") expect((await q.initializationResult()).plugins_applied).toBe(true)
    const messages = await collect(q)
    const blocked = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "b1") as any
    expect(blocked.is_error).toBe(true)
    expect(String(blocked.content)).toContain("no sudo here")
    expect(messages.some((m: any) => m.type === "system" && m.subtype === "ignored_flags")).toBe(false)
    expect((messages.find((m) => m.type === "system" && m.subtype === "init") as any).plugins).toEqual([{ name: "guard", path: plugin, source: "user", status: "loaded" }])
  })

  test("custom slash commands: supportedCommands() lists the project's; a '/name args' prompt is expanded", async () => {
    const root = project({ ".claude/commands/ship.md": "---\ndescription: Ship a version\nargument-hint: VERSION ENV\n---\nShip version $0 to $1.\n" })
    const { env, server } = model([{ text: "Shipped." }])
    const q = query({ prompt: "/ship 1.2 prod", options: base(root, env) })
    // Then the skills a person may run: here anvil's built-in one.
    expect(await q.supportedCommands()).toEqual([{ name: "ship", description: "Ship a version", argumentHint: "VERSION ENV" }, { name: "create-skill", description: expect.stringMatching(/^Write a new agent skill/), argumentHint: "" }])
    const messages = await collect(q)
    expect(server.requests[0]!.body.messages.at(-1).content).toBe("Ship version 1.2 to prod.")
    expect((messages.find((m) => m.type === "system" && m.subtype === "init") as any).slash_commands).toEqual(["ship"])
  })

  test("supportedCommands() lists the commands of the plugins that load, as plugin:name; disabled and untrusted plugins' are left out", async () => {
    const root = project({
      ".claude/commands/ship.md": "Ship it.\n",
      // A plugin that came with the repository, not trusted: its commands do not load.
      ".anvil/plugins/repo/.claude-plugin/plugin.json": JSON.stringify({ name: "repo" }),
      ".anvil/plugins/repo/commands/sneaky.md": "Do something.\n",
    })
    const plugin = (name: string, commands: Record<string, string>) => {
      const dir = tempDir(`anvil-sdk-${name}-`)
      writeTree(dir, { ".claude-plugin/plugin.json": JSON.stringify({ name }), ...Object.fromEntries(Object.entries(commands).map(([k, v]) => [`commands/${k}.md`, v])) })
      return { type: "local" as const, path: dir }
    }
    const plugins = [
      plugin("team", { deploy: "---\ndescription: Deploy the service\nargument-hint: ENV\n---\nDeploy to $0.\n", ship: "Team ship.\n" }),
      plugin("off", { disabled: "Never listed.\n" }),
    ]
    const { env, server } = model([{ text: "Deployed." }])
    // The user disables one in their own settings (a repository's anvil.json needs trust to switch off the user's plugins).
    writeTree(env.HOME, { ".config/anvil/anvil.json": JSON.stringify({ plugins: { disabled: ["off"] } }) })
    const q = query({ prompt: "/team:deploy staging", options: { ...base(root, env), plugins } })
    expect(await q.supportedCommands()).toEqual([
      { name: "ship", description: "Ship it.", argumentHint: "" },
      { name: "team:deploy", description: "Deploy the service", argumentHint: "ENV", aliases: ["deploy"] },
      // The project's own ship holds the plain name.
      { name: "team:ship", description: "Team ship.", argumentHint: "" },
      { name: "create-skill", description: expect.stringMatching(/^Write a new agent skill/), argumentHint: "" },
    ])
    const messages = await collect(q)
    expect(server.requests[0]!.body.messages.at(-1).content).toBe("Deploy to staging.")
    expect((messages.find((m) => m.type === "system" && m.subtype === "init") as any).slash_commands).toEqual(["ship", "team:deploy", "team:ship"])
  })

  test("a SessionStart hook's additionalContext reaches the model as context, also when systemPrompt replaces the prompt", async () => {
    const root = project({})
    const { env, server } = model([{ text: "Hi." }, { text: "Hi again." }])
    const startHook = (mark: string) => ({
      SessionStart: [{ hooks: [async (input: any) => ({ hookSpecificOutput: { hookEventName: "SessionStart" as const, additionalContext: `${mark} (${input.source})` } })] }],
    })
    const first = resultOf(await collect(query({ prompt: "hello", options: { ...base(root, env), systemPrompt: "You are terse.", hooks: startHook("START-MARK") } })))
    const sent = server.requests[0]!.body.messages
    // The replaced prompt is the program's, as given; the context is a message of its own before the prompt.
    expect(sent[0]).toEqual({ role: "system", content: "You are terse." })
    expect(sent.map((m: any) => m.role)).toEqual(["system", "user", "user"])
    expect(sent[1].content).toContain("START-MARK (startup)")
    expect(sent[2].content).toBe("hello")
    // Resumed, with anvil's own prompt: the hook runs again with source resume, and its context reaches the model too.
    await collect(query({ prompt: "again", options: { ...base(root, env), resume: first.session_id, hooks: startHook("RESUME-MARK") } }))
    const resumed = JSON.stringify(server.requests[1]!.body.messages.slice(1))
    expect(resumed).toContain("RESUME-MARK (resume)")
    expect(JSON.stringify(server.requests[1]!.body.messages[0])).not.toContain("RESUME-MARK")
  })

  test("hooks: PreToolUse denies with a reason the model sees; PostToolUse sees the result", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { env, server } = model([
      { tool_calls: [{ name: "bash", arguments: { command: "rm -rf a.txt" }, id: "c1" }] },
      { tool_calls: [{ name: "read", arguments: { path: "a.txt" }, id: "c2" }] },
      { text: "Read it." },
    ])
    const seen: Array<any> = []
    await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          permissionMode: "bypassPermissions",
          hooks: {
            PreToolUse: [{ matcher: "Bash", hooks: [async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no deleting" } })] }],
            PostToolUse: [{ hooks: [async (input: any) => (seen.push(input), {})] }],
          },
        },
      }),
    )
    expect(existsSync(join(root, "a.txt"))).toBe(true)
    const second = JSON.stringify(server.requests[1]!.body)
    expect(second).toContain("no deleting")
    expect(seen.map((s) => s.tool_name)).toEqual(["Read"])
    // As Claude Code sends them: the path absolute, Read's answer in its own shape (content without line numbers).
    expect(seen[0].tool_input.file_path).toBe(join(root, "a.txt"))
    expect(seen[0].tool_use_id).toBe("c2")
    expect(seen[0].tool_response.file).toMatchObject({ filePath: join(root, "a.txt"), content: "alpha", numLines: 1, startLine: 1, totalLines: 1 })
  })

  test("hooks: an answer anvil cannot use (a refusal written beside hookSpecificOutput) is a notice; the call runs, as in Claude Code", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { env } = model([{ tool_calls: [{ name: "read", arguments: { path: "a.txt" }, id: "c1" }] }, { text: "Read it." }])
    const flat = async () => ({ permissionDecision: "deny", reason: "no reads" }) as any
    const messages = await collect(query({ prompt: "go", options: { ...base(root, env), permissionMode: "bypassPermissions", hooks: { PreToolUse: [{ hooks: [flat] }] } } }))
    const notices = messages.filter((m: any) => m.type === "system" && m.subtype === "notice").map((m: any) => m.message)
    expect(notices).toContainEqual(expect.stringMatching(/^host hook PreToolUse \(.+\) answered JSON with a part anvil cannot use, ignored: permissionDecision is read only inside hookSpecificOutput/))
    const result = messages.find((m: any) => m.type === "user" && JSON.stringify(m.message).includes("tool_result"))
    expect(JSON.stringify(result)).toContain("alpha")
  })

  test("hooks: PreToolUse allow spares canUseTool; ask puts a call the rules allow to canUseTool", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { env } = model([
      { tool_calls: [{ name: "write", arguments: { path: "b.txt", content: "beta\n" }, id: "w1" }] },
      { tool_calls: [{ name: "read", arguments: { path: "a.txt" }, id: "r1" }] },
      { text: "Done." },
    ])
    const asked: Array<string> = []
    const decide = (decision: "allow" | "ask") => async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse" as const, permissionDecision: decision, permissionDecisionReason: `policy says ${decision}` } })
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          canUseTool: async (tool) => {
            asked.push(tool)
            return { behavior: "deny", message: "not now" }
          },
          hooks: { PreToolUse: [{ matcher: "Write", hooks: [decide("allow")] }, { matcher: "Read", hooks: [decide("ask")] }] },
        },
      }),
    )
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("beta\n")
    expect(asked).toEqual(["Read"])
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Read"])
  })

  test("a failing PreToolUse hook whose matcher says onFailure: block blocks the call; one that says continue lets it run", async () => {
    const root = project({})
    const { env, server } = model([
      { tool_calls: [{ name: "write", arguments: { path: "blocked.txt", content: "x" }, id: "w1" }, { name: "bash", arguments: { command: "echo ran > ran.txt" }, id: "b1" }] },
      { text: "Done." },
    ])
    const failing = async (): Promise<never> => {
      throw new Error("hook crashed")
    }
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          permissionMode: "bypassPermissions",
          hooks: { PreToolUse: [{ matcher: "Write", onFailure: "block", hooks: [failing] }, { matcher: "Bash", hooks: [failing] }] },
        },
      }),
    )
    expect(existsSync(join(root, "blocked.txt"))).toBe(false)
    expect(existsSync(join(root, "ran.txt"))).toBe(true)
    expect(JSON.stringify(server.requests[1]!.body)).toContain("blocks what it guards when it fails")
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Write"])
  })

  test("a PostToolUse hook's continue: false ends the turn before anything else runs, as the program's own stop", async () => {
    const root = project({})
    const { env, server } = model([
      { tool_calls: [{ name: "bash", arguments: { command: "echo hi" }, id: "c1" }] },
      { tool_calls: [{ name: "bash", arguments: { command: "echo again > again.txt" }, id: "c2" }] },
      { text: "never" },
    ])
    const messages = await collect(
      query({
        prompt: "go",
        options: { ...base(root, env), permissionMode: "bypassPermissions", hooks: { PostToolUse: [{ hooks: [async () => ({ continue: false, stopReason: "enough for now" })] }] } },
      }),
    )
    expect(server.requests.length).toBe(1)
    expect(existsSync(join(root, "again.txt"))).toBe(false)
    const result = resultOf(messages) as any
    expect(result.subtype).toBe("success")
    expect(result.is_error).toBe(false)
    expect(result.terminal_reason).toBe("hook_stopped")
    expect(messages.some((m: any) => m.type === "system" && m.subtype === "hook_stopped" && m.message === "enough for now")).toBe(true)
  })

  test("a Stop hook's decision: block sends the turn back to the model with its reason; stop_hook_active says so", async () => {
    const root = project({})
    const { env, server } = model([{ text: "half done" }, { text: "all done" }])
    const seen: Array<any> = []
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          hooks: {
            Stop: [{ hooks: [async (input: any) => (seen.push(input), input.stop_hook_active ? {} : { decision: "block" as const, reason: "run the tests first" })] }],
            // An event anvil never calls is said so once, not left to wait silently.
            PreCompact: [{ hooks: [async () => ({})] }],
          },
        },
      }),
    )
    expect(seen.map((s) => s.stop_hook_active)).toEqual([false, true])
    expect(messages.some((m: any) => m.type === "system" && m.subtype === "notice" && m.message.includes("hooks for PreCompact are never called"))).toBe(true)
    expect(seen[0].last_assistant_message).toBe("half done")
    expect(JSON.stringify(server.requests[1]!.body)).toContain("run the tests first")
    expect(messages.filter((m) => m.type === "result").map((m: any) => m.result)).toEqual(["all done"])
  })

  test("outputFormat json_schema: a StructuredOutput tool, reminders, an invalid answer sent back, the valid one ends the turn", async () => {
    const root = project({})
    const { env, server } = model([
      { text: "The answer is 42." },
      { tool_calls: [{ name: "StructuredOutput", arguments: { answer: "forty-two" }, id: "s1" }] },
      { tool_calls: [{ name: "StructuredOutput", arguments: { answer: 42, unit: "none" }, id: "s2" }] },
      { text: "never asked" },
    ])
    const schema = { type: "object", properties: { answer: { type: "number" }, unit: { type: "string" } }, required: ["answer"] }
    const messages = await collect(query({ prompt: "what is it?", options: { ...base(root, env), outputFormat: { type: "json_schema", schema } } }))
    expect(server.requests.length).toBe(3)
    expect(JSON.stringify(server.requests[0]!.body.tools)).toContain("StructuredOutput")
    expect(JSON.stringify(server.requests[1]!.body)).toContain("You ended without calling the StructuredOutput tool")
    expect(JSON.stringify(server.requests[2]!.body)).toContain("does not match the schema: /answer must be number")
    const result = resultOf(messages) as any
    expect(result.subtype).toBe("success")
    expect(result.structured_output).toEqual({ answer: 42, unit: "none" })
    expect(messages.filter((m) => m.type === "result").length).toBe(1)
  })

  test("outputFormat json_schema: a model that never calls the tool ends in error_max_structured_output_retries", async () => {
    const root = project({})
    const { env, server } = model([{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }, { text: "e" }])
    const messages = await collect(query({ prompt: "go", options: { ...base(root, env), outputFormat: { type: "json_schema", schema: { type: "array", items: { type: "string" } } } } }))
    expect(server.requests.length).toBe(4)
    const result = resultOf(messages) as any
    expect(result.subtype).toBe("error_max_structured_output_retries")
    expect(result.is_error).toBe(true)
    expect(result.structured_output).toBeUndefined()
  })

  test("a hook callback that never answers is given up after its matcher's timeout: skipped, or blocking with onFailure: block", async () => {
    const root = project({})
    const { env } = model([{ tool_calls: [{ name: "bash", arguments: { command: "echo x > x.txt" }, id: "b1" }] }, { text: "Went on." }])
    const never = () => new Promise<never>(() => undefined)
    const started = performance.now()
    const messages = await collect(
      query({
        prompt: "go",
        options: {
          ...base(root, env),
          permissionMode: "bypassPermissions",
          hooks: { UserPromptSubmit: [{ timeout: 1, hooks: [never] }], PreToolUse: [{ matcher: "Bash", timeout: 1, onFailure: "block", hooks: [never] }] },
        },
      }),
    )
    expect(performance.now() - started).toBeLessThan(15_000)
    expect((resultOf(messages) as any).result).toBe("Went on.")
    expect(existsSync(join(root, "x.txt"))).toBe(false)
    const notices = messages.filter((m: any) => m.type === "system" && m.subtype === "notice").map((m: any) => m.message)
    expect(notices.some((n: string) => n.includes("UserPromptSubmit") && n.includes("no answer within 1 s"))).toBe(true)
  })

  test("two user messages in streaming input are two turns of one session; disallowedTools denies", async () => {
    const root = project({})
    const { env } = model([{ tool_calls: [{ name: "bash", arguments: { command: "echo hi" }, id: "c1" }] }, { text: "first" }, { text: "second" }])
    const { prompts, release } = twoPrompts()
    const results: Array<any> = []
    for await (const m of query({ prompt: prompts, options: { ...base(root, env), permissionMode: "bypassPermissions", disallowedTools: ["Bash"] } })) {
      if (m.type === "result") {
        results.push(m)
        if (results.length === 1) release()
        else break
      }
    }
    expect(results.map((r) => r.result)).toEqual(["first", "second"])
    expect(results[0].session_id).toBe(results[1].session_id)
    expect(results[0].permission_denials.map((d: any) => d.tool_name)).toEqual(["Bash"])
  })

  test("setPermissionMode('plan') mid-session refuses a call even bypassPermissions let through before", async () => {
    const root = project({})
    const { env } = model([{ text: "first" }, { tool_calls: [{ name: "bash", arguments: { command: "touch made.txt" }, id: "c1" }] }, { text: "planned" }])
    const { prompts, release } = twoPrompts()
    const q = query({ prompt: prompts, options: { ...base(root, env), permissionMode: "bypassPermissions" } })
    const messages: Array<any> = []
    for await (const m of q) {
      messages.push(m)
      if (m.type === "result") {
        if (messages.filter((x) => x.type === "result").length === 1) {
          await q.setPermissionMode("plan")
          release()
        } else break
      }
    }
    const refused = messages.find((m) => m.type === "user" && Array.isArray(m.message.content) && m.message.content[0]?.type === "tool_result")
    expect(refused.message.content[0].is_error).toBe(true)
    expect(refused.tool_use_result).toContain("Plan mode forbids Bash")
    expect(existsSync(join(root, "made.txt"))).toBe(false)
  })

  test("setModel during a session switches the next requests; a model that cannot be set up is refused, the session keeps its own", async () => {
    const root = project({})
    const { env, server } = model([{ text: "first" }, { text: "second" }])
    const { prompts, release } = twoPrompts()
    const q = query({ prompt: prompts, options: base(root, env) })
    const results: Array<any> = []
    let refused = ""
    for await (const m of q) {
      if (m.type !== "result") continue
      results.push(m)
      if (results.length === 2) break
      await q.setModel("nosuchprovider/x").catch((e: Error) => (refused = e.message))
      await q.setModel("openai/gpt-other")
      release()
    }
    expect(refused).toContain("nosuchprovider")
    expect(server.requests.map((r) => r.body.model)).toEqual(["gpt-test", "gpt-other"])
    expect(results.map((r) => r.result)).toEqual(["first", "second"])
    // modelUsage is the session's, per model, as Claude Code's: the first turn's model and the one set since.
    expect(Object.keys(results[1].modelUsage)).toEqual(["openai/gpt-test", "openai/gpt-other"])
    expect(results[1].modelUsage["openai/gpt-other"].outputTokens).toBe(10)
  })

  test("a session resumed after setModel continues with the model chosen last; a model named for the resumed run wins", async () => {
    const root = project({})
    const { env, server } = model([{ text: "first" }, { text: "second" }, { text: "resumed" }, { text: "named" }])
    const { prompts, release } = twoPrompts()
    const q = query({ prompt: prompts, options: base(root, env) })
    let sessionId = ""
    let results = 0
    for await (const m of q) {
      if (m.type !== "result") continue
      sessionId = m.session_id
      if (++results === 2) break
      await q.setModel("openai/gpt-other")
      release()
    }
    // No model option: the SDK passes no --model, and the session's own choice is used.
    const { model: _named, ...unnamed } = base(root, env)
    const resumed = resultOf(await collect(query({ prompt: "go on", options: { ...unnamed, resume: sessionId } })))
    expect((resumed as { result: string }).result).toBe("resumed")
    await collect(query({ prompt: "and now", options: { ...base(root, env), resume: sessionId } }))
    expect(server.requests.map((r) => r.body.model)).toEqual(["gpt-test", "gpt-other", "gpt-other", "gpt-test"])
    expect(Object.keys((resumed as any).modelUsage)).toEqual(["openai/gpt-other"])
  })

  test("interrupt during a long bash command ends the turn and leaves no process behind", async () => {
    const root = project({})
    const marker = `sleep ${37 + Math.random()}`.slice(0, 12)
    const { env } = model([{ tool_calls: [{ name: "bash", arguments: { command: marker, timeout_ms: 60000 }, id: "c1" }] }, { text: "stopped" }])
    const q = query({ prompt: "wait", options: { ...base(root, env), permissionMode: "bypassPermissions" } })
    const messages: Array<SDKMessage> = []
    const running = () => runningProcess(marker)
    for await (const m of q) {
      messages.push(m)
      if (m.type === "assistant") {
        for (let i = 0; i < 100 && !running(); i++) await Bun.sleep(50)
        await q.interrupt()
      }
      if (m.type === "result") break
    }
    expect(resultOf(messages)).toBeDefined()
    for (let i = 0; i < 40 && running(); i++) await Bun.sleep(50)
    expect(running()).toBe(false)
  })

  test("interrupt while canUseTool is still deciding ends the turn at once; the request is withdrawn (its signal aborts)", async () => {
    const root = project({})
    const { env } = model([{ tool_calls: [{ name: "Bash", arguments: { command: "touch never.txt" }, id: "c1" }] }, { text: "after" }])
    let signal: AbortSignal | undefined
    const q = query({
      prompt: "go",
      options: {
        ...base(root, env),
        canUseTool: (_tool, _input, options) => {
          signal = options.signal
          return new Promise(() => {})
        },
      },
    })
    const started = performance.now()
    let result: any
    for await (const m of q) {
      if (m.type === "assistant") {
        for (let i = 0; i < 100 && signal === undefined; i++) await Bun.sleep(20)
        await q.interrupt()
      }
      if (m.type === "result") {
        result = m
        break
      }
    }
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(result).toMatchObject({ reason: "cancelled", permission_denials: [] })
    expect(signal?.aborted).toBe(true)
    expect(existsSync(join(root, "never.txt"))).toBe(false)
  })

  test("interrupt while a UserPromptSubmit hook is awaited ends that turn at once; the next message runs", async () => {
    const root = project({})
    const { env, server } = model([{ text: "second answered" }])
    const { prompts, release } = twoPrompts()
    let calls = 0
    // The first call never answers; the program interrupts while it waits.
    const hang = async (): Promise<any> => {
      if (++calls > 1) return {}
      setTimeout(() => void q.interrupt(), 100)
      return new Promise(() => {})
    }
    const q = query({ prompt: prompts, options: { ...base(root, env), hooks: { UserPromptSubmit: [{ hooks: [hang] }] } } })
    const started = performance.now()
    const results: Array<any> = []
    for await (const m of q) {
      if (m.type !== "result") continue
      results.push(m)
      if (results.length === 1) release()
      else break
    }
    expect(performance.now() - started).toBeLessThan(10_000)
    expect(results.map((r) => [r.reason, r.result])).toEqual([["cancelled", ""], ["completed", "second answered"]])
    expect(server.requests.length).toBe(1)
  })

  test("plan mode refuses Write with the reason, not 'Unknown tool'; resumed in another mode the session writes", async () => {
    const root = project({})
    const write = { tool_calls: [{ name: "Write", arguments: { file_path: "plan.txt", content: "x" }, id: "w1" }] }
    const { env } = model([write, { text: "The plan: write plan.txt." }, write, { text: "Written." }])
    const planned = await collect(query({ prompt: "plan", options: { ...base(root, env), permissionMode: "plan" } }))
    const refused = planned.flatMap((m: any) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.type === "tool_result")
    expect(refused.is_error).toBe(true)
    expect(JSON.stringify(refused.content)).toContain("Plan mode forbids Write")
    expect(JSON.stringify(refused.content)).not.toContain("Unknown tool")
    const carrier = planned.find((m: any) => m.type === "user" && Array.isArray(m.message.content) && m.message.content.includes(refused)) as any
    expect(carrier.tool_use_result).toStartWith("Error: Plan mode forbids Write")
    // The model's call under Claude's name is listed with Claude's fields.
    expect(resultOf(planned).permission_denials).toEqual([{ tool_name: "Write", tool_use_id: "w1", tool_input: { file_path: "plan.txt", content: "x" } }])
    expect(existsSync(join(root, "plan.txt"))).toBe(false)
    const first = resultOf(planned)
    expect(first.subtype).toBe("success")
    const done = resultOf(await collect(query({ prompt: "do it", options: { ...base(root, env), resume: first.session_id, permissionMode: "bypassPermissions" } })))
    expect((done as { result: string }).result).toBe("Written.")
    expect(readFileSync(join(root, "plan.txt"), "utf8")).toBe("x")
  })

  test("resume by session id continues the same conversation", async () => {
    const root = project({})
    const { env, server } = model([{ text: "remembered: 42" }, { text: "it was 42" }])
    const first = resultOf(await collect(query({ prompt: "remember 42", options: base(root, env) })))
    const second = resultOf(await collect(query({ prompt: "what was it?", options: { ...base(root, env), resume: first.session_id } })))
    expect((second as { result: string }).result).toBe("it was 42")
    expect(JSON.stringify(server.requests[1]!.body)).toContain("remember 42")
  })
})

describe("background commands (Bash run_in_background)", () => {
  test("the call answers at once with an id; TaskOutput and BashOutput read it, KillShell ends it, the session's end ends the rest; all under the sandbox", async () => {
    const root = project({})
    const outside = tempDir("anvil-sdk-bg-outside-")
    const sleeper = `sleep ${(40 + Math.random() * 10).toFixed(4)}`
    const survivor = `sleep ${(50 + Math.random() * 10).toFixed(4)}`
    const idIn = (body: any): string => /bash_[0-9a-f]{8}/.exec(JSON.stringify(body.messages.at(-1)))![0]
    const { env, server } = model([
      {
        tool_calls: [
          { name: "Bash", arguments: { command: `echo started; echo oops >&2; echo x > ${outside}/escaped.txt; ${sleeper}`, run_in_background: true, description: "serve" }, id: "b1" },
        ],
      },
      { from: (body) => ({ tool_calls: [{ name: "TaskOutput", arguments: { task_id: idIn(body), block: true, timeout: 1500 }, id: "o1" }] }) },
      { from: (body) => ({ tool_calls: [{ name: "KillShell", arguments: { shell_id: /bash_[0-9a-f]{8}/.exec(JSON.stringify(body.messages))![0] }, id: "k1" }] }) },
      { tool_calls: [{ name: "Bash", arguments: { command: survivor, run_in_background: true }, id: "b2" }] },
      { from: (body) => ({ tool_calls: [{ name: "BashOutput", arguments: { bash_id: idIn(body) }, id: "o2" }] }) },
      { text: "Done." },
    ])
    const seen: Array<any> = []
    const started = performance.now()
    const messages = await collect(
      query({
        prompt: "start a server",
        options: { ...base(root, env), permissionMode: "bypassPermissions", hooks: { PreToolUse: [{ hooks: [async (input: any) => (seen.push(input), {})] }] } },
      }),
    )
    const results = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])) as Array<any>
    const text = (id: string) => String(results.find((b) => b.tool_use_id === id).content)
    expect(text("b1")).toMatch(/Started in the background: bash_[0-9a-f]{8} \(running\)/)
    // The host's hook saw Claude's tool and fields, run_in_background included.
    expect(seen[0].tool_name).toBe("Bash")
    expect(seen[0].tool_input.run_in_background).toBe(true)
    expect(seen.map((s) => s.tool_name)).toEqual(["Bash", "BashOutput", "KillShell", "Bash", "BashOutput"])
    expect(text("o1")).toContain(": running")
    expect(text("o1")).toContain("started\noops")
    // The command sandbox holds a background command too: the write outside the project was refused.
    expect(existsSync(join(outside, "escaped.txt"))).toBe(false)
    expect(text("k1")).toContain(": was stopped")
    expect(runningProcess(sleeper)).toBe(false)
    expect(text("o2")).toContain("(no new output)")
    expect((resultOf(messages) as any).result).toBe("Done.")
    expect(performance.now() - started).toBeLessThan(30_000)
    // Claude Code's task messages: each start (nested under its Bash call), and the end of the one stopped.
    const tasks = messages.filter((m: any) => m.type === "system" && (m.subtype === "task_started" || m.subtype === "task_notification")) as Array<any>
    const firstId = /bash_[0-9a-f]{8}/.exec(text("b1"))![0]
    expect(tasks[0]).toMatchObject({ subtype: "task_started", task_id: firstId, tool_use_id: "b1", task_type: "local_bash" })
    expect(tasks.find((t) => t.subtype === "task_notification")).toMatchObject({ task_id: firstId, tool_use_id: "b1", status: "stopped", summary: expect.stringContaining("was stopped") })
    expect(tasks.map((t) => t.subtype)).toEqual(["task_started", "task_notification", "task_started"])
    // The program closed the session: the command still running went with it.
    for (let i = 0; i < 60 && runningProcess(survivor); i++) await Bun.sleep(50)
    expect(runningProcess(survivor)).toBe(false)
    expect(server.requests.length).toBe(6)
  })
})

describe("backgroundTasks(): the program moves a running command to the background", () => {
  test("the call answers at once and the turn goes on; the command ends in the background, its output (stdout and stderr) in its output file", async () => {
    const root = project({})
    const marker = `moved-${Math.random().toString(16).slice(2, 10)}`
    const idIn = (body: any): string => /bash_[0-9a-f]{8}/.exec(JSON.stringify(body.messages.at(-1)))![0]
    const { env } = model([
      { tool_calls: [{ name: "Bash", arguments: { command: `sleep 2; echo ${marker}; echo err >&2` }, id: "f1" }] },
      { from: (body) => ({ tool_calls: [{ name: "TaskOutput", arguments: { task_id: idIn(body), block: true, timeout: 10_000 }, id: "o1" }] }) },
      { text: "Done." },
    ])
    const q = query({ prompt: "run it", options: { ...base(root, env), permissionMode: "bypassPermissions" } })
    const messages: Array<SDKMessage> = []
    const answers: Array<boolean> = []
    let movedAt = 0
    for await (const m of q) {
      messages.push(m)
      if (m.type !== "assistant" || !JSON.stringify(m.message.content).includes('"f1"')) continue
      answers.push(await q.backgroundTasks("no-such-call"))
      // The call starts its command just after the program sees it: asked again until it runs.
      for (let i = 0; i < 100; i++) {
        if (await q.backgroundTasks("f1")) break
        await Bun.sleep(20)
      }
      movedAt = performance.now()
    }
    const results = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])) as Array<any>
    const text = (id: string) => String(results.find((b) => b.tool_use_id === id).content)
    expect(answers).toEqual([false])
    expect(text("f1")).toMatch(/moved this command to the background while it ran; it goes on as bash_[0-9a-f]{8} \(running\)/)
    expect(text("o1")).toContain(`${marker}\nerr`)
    expect(text("o1")).toContain("exited with code 0")
    expect((resultOf(messages) as any).result).toBe("Done.")
    const tasks = messages.filter((m: any) => m.type === "system" && (m.subtype === "task_started" || m.subtype === "task_notification")) as Array<any>
    expect(tasks.map((t) => [t.subtype, t.tool_use_id, t.status])).toEqual([["task_started", "f1", undefined], ["task_notification", "f1", "completed"]])
    // As Claude Code tells its Ctrl+B: a task the call waited on, patched into the background, then its end.
    const lifecycle = messages.filter((m: any) => m.type === "system" && String(m.subtype).startsWith("task_")) as Array<any>
    const id = tasks[0].task_id
    expect(lifecycle.map((t) => [t.subtype, t.is_backgrounded, t.patch?.is_backgrounded, t.patch?.status])).toEqual([
      ["task_started", false, undefined, undefined],
      ["task_updated", undefined, true, undefined],
      ["task_updated", undefined, undefined, "completed"],
      ["task_notification", undefined, undefined, undefined],
    ])
    for (const t of lifecycle) expect(t.task_id).toBe(id)
    expect(lifecycle[2].patch.end_time).toBeGreaterThan(0)
    // The f1 answer came long before the command's two seconds were over.
    const f1At = messages.findIndex((m: any) => m.type === "user" && JSON.stringify(m.message.content).includes('"f1"'))
    expect(f1At).toBeLessThan(messages.findIndex((m: any) => m.subtype === "task_notification"))
    expect(movedAt).toBeGreaterThan(0)
    // Without a tool_use id every running command moves; with nothing running the answer is still true, as the SDK says.
    const idle = query({ prompt: "x", options: { ...base(root, model([{ text: "ok" }]).env) } })
    expect(await idle.backgroundTasks()).toBe(true)
    expect((resultOf(await collect(idle)) as any).result).toBe("ok")
  })
})

describe("a subagent's background commands", () => {
  test("end when the subagent ends (as Claude Code ends them); the main agent's own go on until the session ends", async () => {
    const root = project({})
    const subSleeper = `sleep ${(70 + Math.random() * 10).toFixed(4)}`
    const mainSleeper = `sleep ${(80 + Math.random() * 10).toFixed(4)}`
    const { env } = model([
      { tool_calls: [{ name: "Task", arguments: { subagent_type: "starter", description: "start", prompt: "start a server" }, id: "t1" }] },
      { tool_calls: [{ name: "Bash", arguments: { command: subSleeper, run_in_background: true }, id: "sb1" }] },
      { text: "server started" },
      { tool_calls: [{ name: "Bash", arguments: { command: mainSleeper, run_in_background: true }, id: "mb1" }] },
      { tool_calls: [{ name: "Bash", arguments: { command: "true" }, id: "mb2" }] },
      { text: "Done." },
    ])
    const seen: Record<string, { sub: boolean; main: boolean }> = {}
    const agents = { starter: { description: "Starts servers", prompt: "You start servers.", tools: ["Bash"] } }
    const hook = async (input: any) => {
      seen[String(input.tool_input.command)] = { sub: runningProcess(subSleeper), main: runningProcess(mainSleeper) }
      return {}
    }
    const messages = await collect(query({ prompt: "go", options: { ...base(root, env), agents, permissionMode: "bypassPermissions", hooks: { PreToolUse: [{ hooks: [hook] }] } } }))
    // When the main agent's next call came, the subagent had ended and its command with it; the main agent's stayed.
    expect(seen[mainSleeper]).toEqual({ sub: false, main: false })
    expect(seen["true"]).toEqual({ sub: false, main: true })
    const ends = messages.filter((m: any) => m.type === "system" && m.subtype === "task_notification") as Array<any>
    expect(ends[0]).toMatchObject({ tool_use_id: "sb1", status: "stopped" })
    expect((resultOf(messages) as any).result).toBe("Done.")
    for (let i = 0; i < 60 && runningProcess(mainSleeper); i++) await Bun.sleep(50)
    expect(runningProcess(mainSleeper)).toBe(false)
  })
})

describe("a background command stopped by the program", () => {
  test("stopTask(id) ends the command the model started in the background; the model is told at its next turn", async () => {
    const root = project({})
    const sleeper = `sleep ${(60 + Math.random() * 10).toFixed(4)}`
    const { env, server } = model([{ tool_calls: [{ name: "Bash", arguments: { command: sleeper, run_in_background: true }, id: "b1" }] }, { text: "started" }, { text: "second" }])
    const { prompts, release } = twoPrompts()
    const q = query({ prompt: prompts, options: { ...base(root, env), permissionMode: "bypassPermissions" } })
    const running = () => runningProcess(sleeper)
    let id = ""
    let results = 0
    let refused = ""
    for await (const m of q) {
      if (m.type === "user" && Array.isArray(m.message.content)) id = /bash_[0-9a-f]{8}/.exec(JSON.stringify(m.message.content))?.[0] ?? id
      if (m.type !== "result") continue
      if (++results === 2) break
      expect(running()).toBe(true)
      await q.stopTask(id)
      expect(running()).toBe(false)
      await q.stopTask("bash_00000000").catch((e: Error) => (refused = e.message))
      release()
    }
    expect(refused).toContain(`no background task 'bash_00000000' (the session's: ${id})`)
    // The stop came from the program, not from a read of the model's: its next turn begins with a note of it.
    const next = JSON.stringify(server.requests[2]!.body.messages)
    expect(next).toContain(`The background command ${id} (${sleeper}) was stopped.`)
    expect(JSON.stringify(server.requests[1]!.body.messages)).not.toContain("The background command")
  })
})

describe("skills, models and agents the program can ask about", () => {
  const greet = {
    ".claude/skills/greet/SKILL.md":
      "---\nname: greet\ndescription: Greets someone somewhere\nargument-hint: <who> <place>\narguments: [who, place]\n---\nGreet $who at $place (all: $ARGUMENTS; first: $0). Notes in ${CLAUDE_SKILL_DIR}/notes.md.\n",
    ".claude/skills/internal/SKILL.md": "---\nname: internal\ndescription: Only for the model\nuser-invocable: false\n---\nDo internal things.\n",
  }

  test("supportedCommands() lists the skills a person may run; supportedModels() the session's model; supportedAgents() explore and the program's", async () => {
    const root = project(greet)
    const { env, server } = model([{ text: "Hello, Bob." }])
    const agents = { reviewer: { description: "Reviews a diff", prompt: "You review." } }
    const q = query({ prompt: "/greet Bob Paris", options: { ...base(root, env), agents } })
    const commands = await q.supportedCommands()
    expect(commands).toContainEqual({ name: "greet", description: "Greets someone somewhere", argumentHint: "<who> <place>" })
    expect(commands.map((c) => c.name)).not.toContain("internal")
    expect(await q.supportedModels()).toEqual([{ value: "openai/gpt-test", displayName: "gpt-test", description: expect.stringContaining("served by openai") }])
    const listed = await q.supportedAgents()
    expect(listed.map((a) => a.name)).toEqual(["explore", "reviewer"])
    expect(listed[1]).toEqual({ name: "reviewer", description: "Reviews a diff", model: "inherit" })
    await collect(q)
    // The prompt /greet ran the skill: its instructions with the arguments, as Claude Code runs a skill as a command.
    const sent = server.requests[0]!.body.messages.at(-1).content as string
    expect(sent).toContain(`Base directory for this skill: ${join(root, ".claude", "skills", "greet")}`)
    expect(sent).toContain(`Greet Bob at Paris (all: Bob Paris; first: Bob). Notes in ${join(root, ".claude", "skills", "greet")}/notes.md.`)
  })

  test("the skills option keeps only the skills it names: in supportedCommands(), the prompt's list and the Skill tool", async () => {
    const root = project(greet)
    const { env, server } = model([{ tool_calls: [{ name: "Skill", arguments: { skill: "create-skill" }, id: "s1" }] }, { text: "Done." }])
    const q = query({ prompt: "go", options: { ...base(root, env), skills: ["greet"] } })
    expect((await q.supportedCommands()).map((c) => c.name)).toEqual(["greet"])
    const messages = await collect(q)
    const system = JSON.stringify(server.requests[0]!.body.messages[0])
    expect(system).toContain("- greet: Greets someone somewhere")
    expect(system).not.toContain("create-skill")
    const refused = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "s1") as any
    expect(refused.is_error).toBe(true)
    expect(String(refused.content)).toContain("Unknown skill 'create-skill'")
  })

  test("the Skill tool's args reach the skill: named, positional and whole; WebFetch's prompt is put above the page", async () => {
    const root = project(greet)
    const page = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<html><title>Prices</title><body><h1>Prices</h1><p>The plan costs 12 EUR.</p></body></html>", { headers: { "content-type": "text/html" } }) })
    try {
      const url = `http://127.0.0.1:${page.port}/prices`
      const { env } = model([
        { tool_calls: [{ name: "Skill", arguments: { skill: "greet", args: `"Ada Lovelace" London` }, id: "s1" }, { name: "WebFetch", arguments: { url, prompt: "What does the plan cost?" }, id: "w1" }] },
        { text: "Done." },
      ])
      const asked: Array<{ tool: string; input: any }> = []
      const messages = await collect(query({ prompt: "go", options: { ...base(root, env), canUseTool: async (tool, input) => (asked.push({ tool, input }), { behavior: "allow", updatedInput: input }) } }))
      const results = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])) as Array<any>
      const text = (id: string) => String(results.find((b) => b.tool_use_id === id).content)
      expect(text("s1")).toContain(`Greet Ada Lovelace at London (all: "Ada Lovelace" London; first: Ada Lovelace).`)
      expect(text("w1")).toContain("Prompt: What does the plan cost?")
      expect(text("w1")).toContain("The plan costs 12 EUR.")
      expect(text("w1").indexOf("Prompt:")).toBeLessThan(text("w1").indexOf("The plan costs"))
      // The program is asked about WebFetch with Claude's fields, its prompt included.
      expect(asked).toContainEqual({ tool: "WebFetch", input: { url, prompt: "What does the plan cost?" } })
    } finally {
      page.stop(true)
    }
  })
})

describe("the host's in-process MCP server", () => {
  test("its tool is mcp__<server>__<tool>, called through mcp_message", async () => {
    const { createSdkMcpServer, tool } = await import("@anthropic-ai/claude-agent-sdk")
    const { z } = await import("zod")
    const calls: Array<{ a: number; b: number }> = []
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [tool("add", "Add two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => (calls.push({ a, b }), { content: [{ type: "text", text: String(a + b) }] }))],
    })
    const root = project({})
    const { env, server } = model([{ tool_calls: [{ name: "mcp__calc__add", arguments: { a: 2, b: 40 }, id: "m1" }] }, { text: "42" }])
    const messages = await collect(query({ prompt: "add", options: { ...base(root, env), mcpServers: { calc }, allowedTools: ["mcp__calc__add"] } }))
    expect(calls).toEqual([{ a: 2, b: 40 }])
    expect(JSON.stringify(server.requests[0]!.body.tools)).toContain("mcp__calc__add")
    const toolResult = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "m1") as any
    expect(String(toolResult.content)).toContain("42")
    expect(resultOf(messages).subtype).toBe("success")
    // system/init lists the server as Claude Code does.
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as Extract<SDKMessage, { type: "system"; subtype: "init" }>
    expect(init.mcp_servers).toContainEqual({ name: "calc", status: "connected" })
  })
})

describe("the project's own anvil.json", () => {
  test("settings that need trust are ignored and reported as a system warning, as anvil run reports them", async () => {
    const root = project({ "anvil.json": JSON.stringify({ permission: { write: "allow" }, sandbox: { mode: "off" } }) })
    const { env } = model([{ text: "ok" }])
    const messages = await collect(query({ prompt: "hi", options: base(root, env) }))
    const warnings = messages.filter((m: any) => m.type === "system" && m.subtype === "warning") as Array<any>
    expect(warnings.find((w) => w.source === "config")?.message).toContain(`sets permission.write: "allow", but that setting is not trusted`)
    expect(warnings.find((w) => w.source === "sandbox")?.message).toContain("anvil sandbox trust")
    expect(resultOf(messages).subtype).toBe("success")
  })
})

describe("the program's external MCP servers (--mcp-config)", () => {
  test("a stdio server the program names is started and its tool called; init and the first model request list its tools, a slow start waited for", async () => {
    const root = project({})
    const { server, env } = model([{ tool_calls: [{ name: "mcp__tiny__echo", arguments: { message: "hello over stdio" }, id: "e1" }] }, { text: "Echoed." }])
    const tiny = { type: "stdio" as const, command: process.execPath, args: [join(import.meta.dir, "..", "mcp", "tiny-server.ts"), "--start-delay=300"] }
    const messages = await collect(query({ prompt: "echo", options: { ...base(root, env), mcpServers: { tiny }, mcpServersDelivery: "argv", allowedTools: ["mcp__tiny__echo"] } as any }))
    const init = messages.find((m) => m.type === "system" && m.subtype === "init") as Extract<SDKMessage, { type: "system"; subtype: "init" }>
    expect(init.mcp_servers).toContainEqual(expect.objectContaining({ name: "tiny", status: "connected" }))
    expect(init.tools).toContain("mcp__tiny__echo")
    expect(JSON.stringify((server.requests[0]!.body as any).tools)).toContain("mcp__tiny__echo")
    const toolResult = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])).find((b: any) => b.tool_use_id === "e1") as any
    expect(String(toolResult.content)).toContain("hello over stdio")
    expect(toolResult.is_error).toBe(false)
    expect(messages.some((m: any) => m.type === "system" && m.subtype === "ignored_flags" && m.flags.includes("--mcp-config"))).toBe(false)
  })

  test("servers and disallowedTools delivered in initialize instead of on the command line are applied and confirmed", async () => {
    const root = project({})
    const { env } = model([
      { tool_calls: [{ name: "mcp__tiny__echo", arguments: { message: "via initialize" }, id: "e1" }, { name: "bash", arguments: { command: "echo no > no.txt" }, id: "b1" }] },
      { text: "Done." },
    ])
    const tiny = { type: "stdio" as const, command: process.execPath, args: [join(import.meta.dir, "..", "mcp", "tiny-server.ts")] }
    const messages = await collect(
      query({
        prompt: "echo",
        options: { ...base(root, env), mcpServers: { tiny }, mcpServersDelivery: "initialize", disallowedTools: ["Bash"], disallowedToolsDelivery: "initialize", permissionMode: "bypassPermissions" } as any,
      }),
    )
    const results = messages.flatMap((m) => (m.type === "user" && Array.isArray(m.message.content) ? m.message.content : [])) as Array<any>
    expect(String(results.find((b) => b.tool_use_id === "e1").content)).toContain("via initialize")
    expect(results.find((b) => b.tool_use_id === "b1").is_error).toBe(true)
    expect(existsSync(join(root, "no.txt"))).toBe(false)
    expect(resultOf(messages).permission_denials.map((d) => d.tool_name)).toEqual(["Bash"])
  })
})

describe("forking a session", () => {
  test("--fork-session resumes into a new id; the original keeps its history", async () => {
    const root = project({})
    const { env, server } = model([{ text: "remembered: 7" }, { text: "forked: 7" }])
    const first = resultOf(await collect(query({ prompt: "remember 7", options: base(root, env) })))
    const forked = resultOf(await collect(query({ prompt: "and now?", options: { ...base(root, env), resume: first.session_id, forkSession: true } })))
    expect((forked as { result: string }).result).toBe("forked: 7")
    expect(forked.session_id).not.toBe(first.session_id)
    expect(JSON.stringify(server.requests[1]!.body)).toContain("remember 7")
    const original = readFileSync(join(root, ".anvil", "sessions", `${first.session_id}.jsonl`), "utf8")
    expect(original).not.toContain("and now?")
  })
})
