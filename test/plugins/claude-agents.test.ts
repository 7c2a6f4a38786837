import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeConfig } from "../../src/config/config.ts"
import { loadPlugins } from "../../src/plugins/plugin-host.ts"
import { SubagentRunner, type SubagentRequest } from "../../src/tool-framework/subagent.ts"
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
      ["pr-review-toolkit:code-reviewer", 'Use this agent when you need a review. Examples:\\n<example>\\nContext: The user has just implemented a feature.\\nuser: "check it"\\n</example>', "TOOLKIT-PROMPT"],
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
