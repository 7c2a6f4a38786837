import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeConfig } from "../../src/config/config.ts"
import { sdkAgentList } from "../../src/host/sdk-catalog.ts"
import { firstOfEachName, localAgents, readPluginAgents } from "../../src/plugins/claude-agents.ts"
import { loadPlugins } from "../../src/plugins/plugin-host.ts"
import { SubagentRunner, type SubagentRequest } from "../../src/tool-framework/subagent.ts"
import { runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { callTool, project, tempDir, writeTree } from "../support/harness.ts"

// Published Claude Code plugins (anthropics/claude-code's feature-dev and pr-review-toolkit) each ship an agent
// named code-reviewer, described in one unquoted line full of "Context: ..." and "user: ...".
const agent = (description: string, prompt: string) => `---\nname: code-reviewer\ndescription: ${description}\nmodel: sonnet\ncolor: green\n---\n\n${prompt}\n`

describe("Claude Code plugin agents", () => {
  test("two plugins' agents of one name both load as plugin:agent, their descriptions read as published", async () => {
    const config = tempDir("anvil-claude-agents-")
    const env = { XDG_CONFIG_HOME: config, HOME: join(config, "home"), PATH: process.env.PATH ?? "/usr/bin:/bin" }
    writeTree(join(config, "anvil", "plugins"), {
      "feature-dev/.claude-plugin/plugin.json": JSON.stringify({ name: "feature-dev" }),
      "feature-dev/agents/code-reviewer.md": agent("Reviews code for bugs: use it after a change.", "FEATURE-PROMPT"),
      "pr-review-toolkit/.claude-plugin/plugin.json": JSON.stringify({ name: "pr-review-toolkit" }),
      "pr-review-toolkit/agents/code-reviewer.md": agent(
        'Use this agent when you need a review. Examples:\\n<example>\\nContext: The user has just implemented a feature.\\nuser: "check it"\\n</example>',
        "TOOLKIT-PROMPT",
      ),
    })
    const problems: Array<string> = []
    const set = await loadPlugins({ root: project({ "a.txt": "x\n" }), env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: (p) => problems.push(p) })
    expect(problems).toEqual([])
    expect(set.reports.map((r) => [r.name, r.status, r.agents])).toEqual([
      ["feature-dev", "loaded", ["code-reviewer"]],
      ["pr-review-toolkit", "loaded", ["code-reviewer"]],
    ])
    expect(set.agents.map((a) => [a.name, a.description, a.prompt])).toEqual([
      ["feature-dev:code-reviewer", "Reviews code for bugs: use it after a change.", "FEATURE-PROMPT"],
      // Each written `\n` is a line break, as Claude Code reads it.
      ["pr-review-toolkit:code-reviewer", 'Use this agent when you need a review. Examples:\n<example>\nContext: The user has just implemented a feature.\nuser: "check it"\n</example>', "TOOLKIT-PROMPT"],
    ])
  })

  test("the task tool runs an agent by its full name, or by its plain name when only one agent has it", async () => {
    const asked: Array<string> = []
    const subagents = Layer.succeed(SubagentRunner, {
      agents: ["explore", "feature-dev:code-reviewer", "pr-review-toolkit:code-reviewer", "pr-review-toolkit:type-design-analyzer"],
      run: (request: SubagentRequest) => Effect.sync(() => (asked.push(request.agent), { summary: `ran ${request.agent}`, status: "success" as const, steps: 1, tool_calls: 0, input_tokens: 0, output_tokens: 0 })),
    })
    const root = project({ "a.txt": "x\n" })
    const task = (agent: string) => callTool(root, "task", { objective: "review", agent }, { subagents, taskToolAvailable: true })
    expect((await task("pr-review-toolkit:code-reviewer")).envelope).toMatchObject({ status: "success", data: { agent: "pr-review-toolkit:code-reviewer" } })
    expect((await task("type-design-analyzer")).envelope).toMatchObject({ status: "success", data: { agent: "pr-review-toolkit:type-design-analyzer" } })
    const ambiguous = (await task("code-reviewer")).envelope
    expect(ambiguous.error).toMatchObject({ code: "INVALID_PARAM" })
    expect(ambiguous.error!.message).toContain("'code-reviewer' names several subagents (feature-dev:code-reviewer, pr-review-toolkit:code-reviewer); give the full name")
    expect((await task("nobody")).envelope.error!.message).toContain("unknown subagent 'nobody'")
    expect(asked).toEqual(["pr-review-toolkit:code-reviewer", "pr-review-toolkit:type-design-analyzer"])
  })
})

describe("Claude Code's own agent folders", () => {
  const agentFile = (name: string, description: string, extra = "") => `---\nname: ${name}\ndescription: ${description}\n${extra}---\nYou are ${name}.\n`
  const setUp = () => {
    const home = tempDir("anvil-claude-agents-home-")
    const root = project({
      ".claude/agents/reviewer.md": agentFile("reviewer", "The project's reviewer", "tools: Read, Grep\n"),
      ".claude/agents/team/notes.md": agentFile("note-taker", "Takes notes"),
      ".claude/agents/broken.md": "no front matter\n",
    })
    writeTree(join(home, ".claude", "agents"), { "reviewer.md": agentFile("reviewer", "The user's reviewer"), "helper.md": agentFile("helper", "The user's helper") })
    return { root, env: { HOME: home } }
  }

  test("the project's .claude/agents and the user's ~/.claude/agents are read; the project's may be left out", () => {
    const { root, env } = setUp()
    const local = localAgents(root, env, true)
    expect(local.project.agents.map((a) => [a.name, a.description, a.tools])).toEqual([
      ["reviewer", "The project's reviewer", ["read", "grep"]],
      ["note-taker", "Takes notes", undefined],
    ])
    expect(local.project.problems).toEqual([expect.stringContaining("broken.md:1: the file does not start with YAML front matter")])
    expect(local.user.agents.map((a) => a.name)).toEqual(["helper", "reviewer"])
    expect(localAgents(root, env, false).project.agents).toEqual([])
    expect(localAgents(root, { HOME: env.HOME, CLAUDE_CONFIG_DIR: join(env.HOME, "nowhere") }, true).user.agents).toEqual([])
  })

  test("front-matter hooks: kept for the project's and the user's agents (the project's marked so), not run for a plugin's, which is reported", () => {
    const hooks = "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: exit 2\n"
    const agentText = (name: string) => `---\nname: ${name}\ndescription: Guarded.\n${hooks}---\nYou work.\n`
    const home = tempDir("anvil-home-")
    writeTree(home, { ".claude/agents/mine.md": agentText("mine") })
    const root = project({ ".claude/agents/theirs.md": agentText("theirs") })
    const local = localAgents(root, { HOME: home }, true)
    expect(local.project.agents[0]!.hooks).toEqual({ value: expect.objectContaining({ PreToolUse: expect.any(Array) }), file: join(root, ".claude/agents/theirs.md"), project: true })
    expect(local.user.agents[0]!.hooks).toMatchObject({ file: join(home, ".claude/agents/mine.md"), project: false })
    const plugin = tempDir("anvil-plugin-")
    writeTree(plugin, { ".claude-plugin/plugin.json": JSON.stringify({ name: "p" }), "agents/guarded.md": agentText("guarded") })
    const read = readPluginAgents(plugin)
    expect(read.agents[0]!.hooks).toBeUndefined()
    expect(read.problems).toEqual([`${join(plugin, "agents/guarded.md")}: its front matter's hooks are not run: Claude Code ignores hooks in a plugin's agents (the plugin's hooks/hooks.json runs them)`])
  })

  test("Claude Code's order: the project's, the program's, the user's, the plugins'; the first of a name wins", () => {
    const { root, env } = setUp()
    const local = localAgents(root, env, true)
    const own = [{ name: "helper", description: "The program's helper", prompt: "p" }]
    const fromPlugin = [{ name: "team:reviewer", description: "A plugin's reviewer", prompt: "p" }]
    expect(firstOfEachName(local.project.agents, own, local.user.agents, fromPlugin).map((a) => [a.name, a.description])).toEqual([
      ["reviewer", "The project's reviewer"],
      ["note-taker", "Takes notes"],
      ["helper", "The program's helper"],
      ["team:reviewer", "A plugin's reviewer"],
    ])
  })

  test("the Agent SDK's supportedAgents() list: the same order; settingSources without the project leave its agents out", () => {
    const { root, env } = setUp()
    const own = [{ helper: { description: "The program's helper", prompt: "p" } }]
    expect(sdkAgentList(own, [], { root, env, withProject: true }).map((a) => [a.name, a.description])).toEqual([
      ["explore", expect.stringContaining("Explores the code")],
      ["reviewer", "The project's reviewer"],
      ["note-taker", "Takes notes"],
      ["helper", "The program's helper"],
    ])
    expect(sdkAgentList(own, [], { root, env, withProject: false }).map((a) => [a.name, a.description])).toEqual([
      ["explore", expect.stringContaining("Explores the code")],
      ["helper", "The program's helper"],
      ["reviewer", "The user's reviewer"],
    ])
    // One named explore takes the place of anvil's own, as the task tool runs it.
    const explorer = [{ explore: { description: "The program's explorer", prompt: "p" } }]
    expect(sdkAgentList(explorer, [], { root, env, withProject: false }).map((a) => [a.name, a.description])).toEqual([
      ["explore", "The program's explorer"],
      ["helper", "The user's helper"],
      ["reviewer", "The user's reviewer"],
    ])
  })

  test("through the binary: a file agent's disallowedTools (a comma list or a YAML list, Claude's names) are taken from its tools", async () => {
    const { root, env } = setUp()
    writeTree(root, {
      ".claude/agents/cautious.md": agentFile("cautious", "Never runs commands", "disallowedTools: Bash, Write(src/**)\n"),
      ".claude/agents/listed.md": agentFile("listed", "Reads only", "tools: Read, Grep, Bash\ndisallowedTools:\n  - Bash\n"),
    })
    const call = (agent: string) => ({ tool_calls: [{ name: "task", arguments: { agent, objective: "look" } }] })
    const server = fakeOpenAI([call("cautious"), { text: "sub one" }, call("listed"), { text: "sub two" }, { text: "Done." }])
    try {
      const run = await runBinary(["run", "--model", "openai/gpt-test", "-f", "stream-json", "go"], {
        cwd: root,
        env: { ...env, PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
      })
      expect(run.stdout).toContain("Done.")
      expect(JSON.stringify(server.requests[1]!.body.messages[0])).toContain("You are cautious.")
      const cautious = server.requests[1]!.body.tools.map((t: any) => t.function.name)
      expect(cautious).toContain("read")
      expect(cautious).not.toContain("bash")
      expect(cautious).not.toContain("write")
      expect(server.requests[3]!.body.tools.map((t: any) => t.function.name).filter((n: string) => n !== "load_tools").sort()).toEqual(["grep", "read"])
    } finally {
      server.stop()
    }
  })

  test("through the binary: anvil run lists them in init, tells the model, and the task tool runs one with its tools", async () => {
    const { root, env } = setUp()
    // One named as anvil's own explore takes its place (as a project's agent does in Claude Code) and is listed once.
    writeTree(root, {
      ".claude/agents/explore.md": agentFile("explore", "The project's explorer"),
      // As Claude Code's /agents wizard writes a description: one plain line, `\n` between its paragraphs.
      ".claude/agents/wizard.md": "---\nname: wizard\ndescription: Use after a change.\\n\\nExamples:\\n<example>\\nuser: \"done\"\\n</example>\n---\nYou check changes.\n",
    })
    const server = fakeOpenAI([{ tool_calls: [{ name: "task", arguments: { agent: "reviewer", objective: "review a.txt" }, id: "t1" }] }, { text: "fine" }, { text: "Reviewed." }])
    try {
      const run = await runBinary(["run", "--model", "openai/gpt-test", "-f", "stream-json", "review it"], {
        cwd: root,
        env: { ...env, PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
      })
      const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l))
      expect(lines.find((m) => m.subtype === "init").agents).toEqual(["explore", "reviewer", "note-taker", "wizard", "helper"])
      expect(JSON.stringify(server.requests[0]!.body.messages[0])).toContain("- explore: The project's explorer")
      const system = String(server.requests[0]!.body.messages[0].content)
      expect(system).toContain('- wizard: Use after a change.\n\nExamples:\n<example>\nuser: "done"\n</example>')
      expect(system).not.toContain("\\n")
      expect(lines.find((m) => m.type === "result").result).toBe("Reviewed.")
      expect(run.stderr).toContain("broken.md:1: the file does not start with YAML front matter")
      expect(JSON.stringify(server.requests[0]!.body.messages[0])).toContain("- reviewer: The project's reviewer")
      const sub = server.requests[1]!.body
      expect(JSON.stringify(sub.messages[0])).toContain("You are reviewer.")
      expect(sub.tools.map((t: any) => t.function.name).filter((n: string) => n !== "load_tools").sort()).toEqual(["grep", "read"])
    } finally {
      server.stop()
    }
  })
})
