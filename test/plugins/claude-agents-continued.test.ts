import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { localAgents } from "../../src/plugins/claude-agents.ts"
import { AGENT_FIELDS, parseContinuedFrontMatter } from "../../src/skills/front-matter-continued.ts"
import { runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// Shaped as anthropics/claude-code shipped pr-review-toolkit's code-simplifier and plugin-dev's agent-creator: a
// description whose examples run on over unindented lines (blank lines, `Context:`, `user:`, `<example>` tags), then
// more fields. YAML refuses both; Claude Code 2.1 loads the plugin's agent without its front matter (placeholder
// description, every tool) and leaves a `.claude/agents/` copy out.
const simplifier = [
  "---",
  "name: code-simplifier",
  "description: Use this agent when code has been written or modified and needs to be simplified.\\n\\nExamples:\\n\\n<example>",
  "Context: The assistant has just implemented a new feature.",
  'user: "Please add authentication to the /api/users endpoint"',
  'assistant: "I\'ve implemented the authentication. Here\'s the code:"',
  "<commentary>",
  "Since a logical chunk of code has been written, use the Task tool to launch the code-simplifier agent.",
  "</commentary>",
  "</example>",
  "model: opus",
  "---",
  "",
  "You are an expert code simplification specialist.",
  "",
].join("\n")

const creator = [
  "---",
  "name: agent-creator",
  'description: Use this agent when the user asks to "create an agent". Examples:',
  "",
  "<example>",
  "Context: User wants to create a code review agent",
  'user: "Create an agent that reviews code for quality issues"',
  'assistant: "I\'ll use the agent-creator agent."',
  "</example>",
  "",
  "model: sonnet",
  "color: magenta",
  'tools: ["Write", "Read"]',
  "---",
  "",
  "You are an elite AI agent architect.",
  "",
].join("\n")

describe("agent front matter whose description runs on over unindented lines", () => {
  test("every field is read: the description with its examples as written, then model, color and tools", () => {
    const read = parseContinuedFrontMatter(creator, AGENT_FIELDS)
    expect(read).toMatchObject({ ok: true, continued: ["description"] })
    if (!read.ok) return
    expect(read.fields).toEqual({
      name: "agent-creator",
      // Lines 3-9 of the file as written, without the key.
      description: creator.split("\n").slice(2, 9).join("\n").replace(/^description: /, ""),
      model: "sonnet",
      color: "magenta",
      tools: ["Write", "Read"],
    })
    expect(read.body.trim()).toBe("You are an elite AI agent architect.")
    expect(read.notes).toEqual([expect.stringMatching(/^lines 3-9: the value of 'description' continues on unindented lines, which YAML does not allow \(Claude Code drops this front matter\)/)])
  })

  test("valid YAML is read as before, a key left bare before its text too, and what still cannot be read keeps a reason and a line", () => {
    const valid = "---\nname: a\ndescription: |\n  One.\n  Two: three.\nmodel: opus\n---\nbody\n"
    expect(parseContinuedFrontMatter(valid, AGENT_FIELDS)).toEqual({ ok: true, fields: { name: "a", description: "One.\nTwo: three.\n", model: "opus" }, body: "body\n", notes: [] })
    // Prettier puts a long value on the line under its key; unindented, YAML reads a second key there.
    const bare = parseContinuedFrontMatter("---\nname: b\ndescription:\nReviews code for style and bugs.\ntools: Read, Grep\n---\nbody\n", AGENT_FIELDS)
    expect(bare).toMatchObject({ ok: true, fields: { name: "b", description: "Reviews code for style and bugs.", tools: "Read, Grep" }, continued: ["description"] })
    // A quote left open on one line is no run-on value: the reason and the line stand.
    expect(parseContinuedFrontMatter('---\nname: c\ndescription: "Reviews code\nmodel: opus\n---\nbody\n', AGENT_FIELDS)).toEqual({
      ok: false,
      reason: "unterminated double-quoted value",
      line: 3,
    })
    // A field given twice stays the duplicate key YAML names; lines YAML reads as more keys alone are still the value's.
    expect(parseContinuedFrontMatter("---\nname: e\nname: f\ndescription: x: y\n  z\n---\nbody\n", AGENT_FIELDS)).toMatchObject({ ok: false, reason: "duplicate key 'name'" })
    const keyed = parseContinuedFrontMatter('---\nname: g\ndescription: Use it.\nContext: a review\ntools: "Read\n---\nbody\n', AGENT_FIELDS)
    expect(keyed).toMatchObject({ ok: false, reason: "unterminated double-quoted value", line: 5 })
    const kept = parseContinuedFrontMatter("---\nname: g\ndescription: Use it.\nContext: a review\n<example>x</example>\ntools: Read\n---\nbody\n", AGENT_FIELDS)
    expect(kept).toMatchObject({ ok: true, fields: { description: "Use it.\nContext: a review\n<example>x</example>", tools: "Read" } })
    // Text before any known field is not a value to continue.
    expect(parseContinuedFrontMatter("---\nUse this agent when reviewing\nname: d\n---\nbody\n", AGENT_FIELDS)).toMatchObject({ ok: false, line: 2 })
  })

  test("a lenient reading never drops a restriction: a field line quoted or spaced is the field, one indented in a run-on value refuses the file", () => {
    const runOn = (tools: string) => `---\nname: rev\ndescription: Use it when reviewing.\n<example>\nuser: review\n</example>\n${tools}\nmodel: inherit\n---\nbody\n`
    for (const line of ["'tools': Read, Grep", '"tools": Read, Grep', "tools : Read, Grep", "tools:\tRead, Grep"]) {
      expect(parseContinuedFrontMatter(runOn(line), AGENT_FIELDS)).toMatchObject({ ok: true, fields: { tools: "Read, Grep", model: "inherit" }, continued: ["description"] })
    }
    for (const line of ["  tools: Read, Grep", "\t'tools' : Read"]) {
      const read = parseContinuedFrontMatter(runOn(line), AGENT_FIELDS)
      expect(read).toMatchObject({ ok: false, line: 7 })
      expect(!read.ok && read.reason).toContain("reads as the field 'tools' indented")
    }
    // An indented line that names no field is the value's text, as before.
    expect(parseContinuedFrontMatter(runOn("  Context: tools are listed"), AGENT_FIELDS)).toMatchObject({ ok: true, continued: ["description"] })
    // A project agent so written does not load (with every tool); the problem names the file and the line.
    const root = project({ "a.txt": "x\n", ".claude/agents/rev.md": runOn("  tools: Read, Grep") })
    const local = localAgents(root, { HOME: tempDir("anvil-agents-home-") }, true)
    expect(local.project.agents).toEqual([])
    expect(local.project.problems).toEqual([expect.stringMatching(/rev\.md:7: the value of 'description' is not valid YAML and runs on over a line that reads as the field 'tools'/)])
  })

  test("the project's and the user's agents load, each reported so that its author can mend it", () => {
    const root = project({ "a.txt": "x\n", ".claude/agents/code-simplifier.md": simplifier })
    const home = tempDir("anvil-agents-home-")
    writeTree(join(home, ".claude", "agents"), { "agent-creator.md": creator })
    const local = localAgents(root, { HOME: home }, true)
    expect(local.project.agents).toEqual([
      {
        name: "code-simplifier",
        description: expect.stringMatching(/^Use this agent when code has been written[\s\S]*user: "Please add authentication[\s\S]*<\/example>$/),
        prompt: "You are an expert code simplification specialist.",
      },
    ])
    expect(local.project.problems).toEqual([expect.stringMatching(/code-simplifier\.md: loaded; lines 3-10: the value of 'description' continues on unindented lines/)])
    expect(local.user.agents.map((a) => [a.name, a.tools])).toEqual([["agent-creator", ["write", "read"]]])
  })

  test("through the binary: a plugin's run-on agent is listed, described with its examples, and runs with only its tools", async () => {
    const root = project({ "a.txt": "x\n" })
    const base = tempDir("anvil-agents-env-")
    const env = { HOME: join(base, "home"), XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache") }
    writeTree(join(env.XDG_CONFIG_HOME, "anvil", "plugins", "plugin-dev"), {
      ".claude-plugin/plugin.json": JSON.stringify({ name: "plugin-dev" }),
      "agents/agent-creator.md": creator,
    })
    const server = fakeOpenAI([{ tool_calls: [{ name: "task", arguments: { agent: "agent-creator", objective: "make one" }, id: "t1" }] }, { text: "made" }, { text: "Done." }])
    try {
      const run = await runBinary(["run", "--model", "openai/gpt-test", "-f", "stream-json", "make an agent"], {
        cwd: root,
        env: { ...env, PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
      })
      const lines = run.stdout.trim().split("\n").map((l) => JSON.parse(l))
      expect(lines.find((m) => m.subtype === "init").agents).toEqual(["explore", "plugin-dev:agent-creator"])
      expect(JSON.stringify(server.requests[0]!.body.messages[0])).toContain('Context: User wants to create a code review agent\\nuser: \\"Create an agent')
      expect(lines.find((m) => m.type === "result").result).toBe("Done.")
      expect(run.stderr).toContain("agent-creator.md: loaded; lines 3-9: the value of 'description' continues on unindented lines")
      const sub = server.requests[1]!.body
      expect(JSON.stringify(sub.messages[0])).toContain("You are an elite AI agent architect.")
      expect(sub.tools.map((t: any) => t.function.name).filter((n: string) => n !== "load_tools").sort()).toEqual(["read", "write"])
    } finally {
      server.stop()
    }
  })
})
