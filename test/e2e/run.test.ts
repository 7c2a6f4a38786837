import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runAnvil, textOf, toolResults, toolUses } from "../support/anvil-cli.ts"
import { fakeAnthropic } from "../support/fake-anthropic.ts"
import type { FakeServer, FakeTurn } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { streamProblems } from "../support/claude-shapes.ts"
import { project } from "../support/harness.ts"

// Each case starts the real CLI as a subprocess (about a second on a busy machine).
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

const openai = (turns: ReadonlyArray<FakeTurn>) => {
  const server = fakeOpenAI(turns)
  servers.push(server)
  return { server, env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" } }
}

/** The messages of a recorded Chat Completions request, by role. */
const toolMessages = (body: any) => body.messages.filter((m: any) => m.role === "tool")

describe("anvil run against a fake OpenAI-compatible server", () => {
  test("several tool calls in one turn; stream-json checked event by event; history keeps envelope and execution_meta", async () => {
    const root = project({ "a.txt": "alpha\n", "b.txt": "beta\n", "src/x.ts": "export const needle = 1\n" })
    const { server, env } = openai([
      {
        text: "Reading both files and searching.",
        tool_calls: [
          { name: "read", arguments: { path: "a.txt" }, id: "c_a" },
          { name: "read", arguments: { path: "b.txt" }, id: "c_b" },
          { name: "glob", arguments: { pattern: "**/*.ts" }, id: "c_g" },
        ],
      },
      { text: "a.txt says alpha, b.txt says beta, needle is in src/x.ts." },
    ])
    const r = await runAnvil(["run", "--format", "stream-json", "summarise a.txt and b.txt"], { cwd: root, env })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const events = jsonLines(r.stdout)
    expect(events.map((e) => e.type)).toEqual(["system", "assistant", "user", "user", "user", "assistant", "result"])
    const [init, first, , , , last, result] = events
    const [useA, useB, useG] = toolUses(events)
    const [resA, resB, resG] = toolResults(events)
    expect(init).toMatchObject({ subtype: "init", model: "openai/gpt-test", profile: "code", engine: "native", resumed: false })
    expect(init.tools).toContain("read")
    expect(init.tools).toContain("task")
    expect(init.tools).not.toContain("question")
    expect(textOf(first)).toBe("Reading both files and searching.")
    expect(toolUses([first]).map((c: any) => c.id)).toEqual(["c_a", "c_b", "c_g"])
    expect(useA).toEqual({ type: "tool_use", id: "c_a", name: "read", input: { path: "a.txt" }, parent_tool_use_id: null })
    expect(useB.input).toEqual({ path: "b.txt" })
    expect(useG.name).toBe("glob")
    expect(resA.id).toBe("c_a")
    expect(resA.envelope.status).toBe("success")
    expect(resA.tool_use_result).toEqual(resA.envelope.data)
    expect(resA.envelope.data.content).toContain("alpha")
    expect(resA.execution_meta).toMatchObject({ tool_name: "Read", tool_call_id: "c_a", status: "success" })
    expect(resB.envelope.data.content).toContain("beta")
    expect(JSON.stringify(resG.envelope.data)).toContain("src/x.ts")
    expect(textOf(last)).toBe("a.txt says alpha, b.txt says beta, needle is in src/x.ts.")
    expect(result).toMatchObject({ type: "result", subtype: "success", is_error: false, reason: "completed", result: textOf(last), session_id: init.session_id })
    expect(result.stats.steps).toBe(2)
    expect(result.stats.tool_calls).toBe(3)
    expect(result.usage.input_tokens).toBeGreaterThan(0)
    expect(result.stats.request_bytes).toEqual(server.requests.map((q) => q.bytes))

    // What the model got back: one tool message per call, in order, with the envelope's text.
    expect(server.requests.length).toBe(2)
    const second = server.requests[1]!.body
    expect(toolMessages(second).map((m: any) => m.tool_call_id)).toEqual(["c_a", "c_b", "c_g"])
    expect(toolMessages(second)[0].content).toStartWith("# Read: a.txt")
    expect(second.messages[0].role).toBe("system")
    expect(second.messages[1]).toEqual({ role: "user", content: "summarise a.txt and b.txt" })
    expect(server.requests[0]!.body.tools.map((t: any) => t.function.name)).toContain("glob")

    // The session file: header, items with raw envelope + execution_meta, a committed turn.
    const file = join(root, ".anvil", "sessions", `${init.session_id}.jsonl`)
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l))
    expect(lines[0]).toMatchObject({ type: "session", id: init.session_id, model: "openai/gpt-test" })
    const toolItems = lines.filter((l) => l.type === "item" && l.item.type === "tool").map((l) => l.item)
    expect(toolItems.length).toBe(3)
    expect(toolItems[0].metadata.tool_raw_envelope.data.content).toContain("alpha")
    expect(toolItems[0].metadata.tool_execution_meta.tool_call_id).toBe("c_a")
    expect(lines.at(-1).type).toBe("turn_end")
    expect(readFileSync(join(root, ".anvil", ".gitignore"), "utf8")).toBe("*\n")
  })

  test("started in a subfolder, the model's root-relative paths from one result work in the next call", async () => {
    const root = project({ "pkg/app/src/main.ts": "export const answer = 42\n", "pkg/app/README.md": "# app\n" })
    const { server, env } = openai([
      { tool_calls: [{ name: "glob", arguments: { pattern: "**/*.ts" }, id: "g" }] },
      { tool_calls: [{ name: "read", arguments: { path: "pkg/app/src/main.ts" }, id: "r" }] },
      { text: "answer is 42" },
    ])
    const r = await runAnvil(["run", "--format", "stream-json", "what is answer?"], { cwd: join(root, "pkg/app"), env })
    expect(r.code).toBe(0)
    const results = toolResults(jsonLines(r.stdout))
    expect(results[0].envelope.data.paths).toEqual(["pkg/app/src/main.ts"])
    expect(results[1].envelope.status).toBe("success")
    expect(results[1].envelope.data.content).toContain("answer = 42")
    // The prompt tells the model where the user is.
    const system = JSON.stringify(server.requests[0]!.body.messages[0])
    expect(system).toContain("The user started anvil in pkg/app")
    // The skills the skill tool can load are named up front.
    expect(system).toContain("# Skills")
    expect(system).toContain("- create-skill: ")
  })

  test("--format text prints only the final answer on stdout; json prints one result object", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { env } = openai([{ tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] }, { text: "It says alpha." }, { text: "Plain." }])
    const text = await runAnvil(["run", "what does a.txt say?"], { cwd: root, env })
    expect(text.code).toBe(0)
    expect(text.stdout).toBe("It says alpha.\n")
    expect(text.stderr).toContain("Read: a.txt")
    const json = await runAnvil(["run", "--format", "json"], { cwd: root, env, stdin: "from stdin\n" })
    expect(json.code).toBe(0)
    const obj = JSON.parse(json.stdout)
    expect(obj).toMatchObject({ type: "result", subtype: "success", result: "Plain.", model: "openai/gpt-test" })
    expect(json.stdout.trim().split("\n").length).toBe(1)
  })

  test("without a TTY an 'ask' call is denied and the model gets PERMISSION_DENIED; --allow approves a narrower rule", async () => {
    // Sandboxed bash is auto-allowed by default (test/sandbox); here it asks as it does unconfined.
    const root = project({ "anvil.json": JSON.stringify({ sandbox: { auto_allow: false } }) })
    const turns: Array<FakeTurn> = [
      { tool_calls: [{ name: "bash", arguments: { command: "echo made > made.txt" }, id: "b1" }] },
      { text: "I could not run it." },
    ]
    const { server, env } = openai(turns)
    const denied = await runAnvil(["run", "-f", "stream-json", "make the file"], { cwd: root, env })
    expect(denied.code).toBe(4)
    const result = toolResults(jsonLines(denied.stdout))[0]
    expect(result.envelope.status).toBe("error")
    expect(result.envelope.error.code).toBe("PERMISSION_DENIED")
    expect(result.envelope.error.message).toContain("--allow")
    expect(existsSync(join(root, "made.txt"))).toBe(false)
    const back = toolMessages(server.requests[1]!.body)[0]
    expect(back.tool_call_id).toBe("b1")
    expect(back.content).toContain("PERMISSION_DENIED")

    // A narrower --allow rule approves exactly that command.
    server.push({ tool_calls: [{ name: "bash", arguments: { command: "echo made > made.txt" } }] }, { text: "Done." })
    const allowed = await runAnvil(["run", "--allow", "bash:echo *", "make the file"], { cwd: root, env })
    expect(allowed.code).toBe(0)
    expect(allowed.stdout).toBe("Done.\n")
    expect(readFileSync(join(root, "made.txt"), "utf8")).toBe("made\n")

    // A compound command is judged part by part: the allow rule does not cover `rm`.
    server.push({ tool_calls: [{ name: "bash", arguments: { command: "echo x && rm made.txt" } }] }, { text: "Refused." })
    const compound = await runAnvil(["run", "--allow", "bash:echo *", "-f", "json", "go"], { cwd: root, env })
    expect(compound.code).toBe(4)
    expect(existsSync(join(root, "made.txt"))).toBe(true)
    expect(toolMessages(server.requests.at(-1)!.body).at(-1).content).toContain("PERMISSION_DENIED")
  })

  test("a deny rule in anvil.json wins over --yes", async () => {
    const root = project({ "anvil.json": JSON.stringify({ permission: { bash: { "*": "allow", "rm *": "deny" } } }), "keep.txt": "k" })
    const { server, env } = openai([{ tool_calls: [{ name: "bash", arguments: { command: "rm keep.txt" } }] }, { text: "Denied." }])
    const r = await runAnvil(["run", "--yes", "delete keep.txt"], { cwd: root, env })
    expect(r.code).toBe(4)
    expect(existsSync(join(root, "keep.txt"))).toBe(true)
    // The refusal and the run's last word name the rule and the file, not --yes (which cannot help).
    expect(toolMessages(server.requests[1]!.body)[0].content).toContain(`denied by the rule "bash": {"rm *": "deny"} in "permission" of ${join(root, "anvil.json")}`)
    expect(r.stderr).toContain("which --yes and --allow do not override")
    expect(r.stderr).not.toContain("Approve bash")
  })

  test("a tool a deny rule refuses outright is not offered, and load_tools says why it is not loaded", async () => {
    const script = [{ tool_calls: [{ name: "load_tools", arguments: { names: ["git_commit", "git_status"] } }] }, "done"]
    const root = project({ "anvil.json": JSON.stringify({ permission: { git_commit: "deny" } }), "s.json": JSON.stringify(script) })
    const r = await runAnvil(["run", "--model", "replay/s.json", "--output-format", "stream-json", "go"], { cwd: root, env: { HOME: root } })
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l))
    expect(lines[0].tools).toContain("git_status")
    expect(lines[0].tools).not.toContain("git_commit")
    const result = lines.find((l) => l.type === "user").message.content[0].content
    expect(result).toContain("Loaded git_status")
    expect(result).toContain(`Not loaded: The 'git_commit' call is denied by the rule "git_commit": "deny"`)
    expect(r.code).toBe(0)
  })

  test("--continue resumes the last session with its history; --session ID picks one; anvil sessions lists them", async () => {
    const root = project({})
    const { server, env } = openai([{ text: "The secret word is kiwi." }, { text: "You asked me about the secret word." }, { text: "fresh" }])
    const first = await runAnvil(["run", "-f", "json", "remember: the secret word"], { cwd: root, env })
    const id = JSON.parse(first.stdout).session_id
    const second = await runAnvil(["run", "--continue", "-f", "stream-json", "what did I ask?"], { cwd: root, env })
    expect(second.code).toBe(0)
    const init = jsonLines(second.stdout)[0]
    expect(init).toMatchObject({ type: "system", subtype: "init", session_id: id, resumed: true })
    const messages = server.requests[1]!.body.messages
    expect(messages.slice(1)).toEqual([
      { role: "user", content: "remember: the secret word" },
      { role: "assistant", content: "The secret word is kiwi." },
      { role: "user", content: "what did I ask?" },
    ])
    const other = await runAnvil(["run", "-f", "json", "new one"], { cwd: root, env })
    expect(JSON.parse(other.stdout).session_id).not.toBe(id)
    const missing = await runAnvil(["run", "--session", "nope-123", "x"], { cwd: root, env })
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain("No session 'nope-123'")
    const list = await runAnvil(["sessions", "--json"], { cwd: root, env })
    expect(list.code).toBe(0)
    const sessions = JSON.parse(list.stdout)
    expect(sessions.length).toBe(2)
    expect(sessions.find((s: any) => s.id === id)).toMatchObject({ turns: 2, title: "remember: the secret word" })
  })

  test("a crash mid-turn loses only that turn: the uncommitted lines are discarded on resume", async () => {
    const root = project({})
    const { server, env } = openai([{ text: "one" }, { text: "two" }])
    const first = await runAnvil(["run", "-f", "json", "first prompt"], { cwd: root, env })
    const id = JSON.parse(first.stdout).session_id
    const file = join(root, ".anvil", "sessions", `${id}.jsonl`)
    // Simulate a crash: a turn's user item written, no turn_end, and a torn last line.
    const torn = `${JSON.stringify({ type: "item", item: { type: "user", text: "lost prompt", source: "prompt" } })}\n{"type":"item","item":{"ty`
    await Bun.write(file, readFileSync(file, "utf8") + torn)
    const second = await runAnvil(["run", "--continue", "-f", "json", "second prompt"], { cwd: root, env })
    expect(second.code).toBe(0)
    const contents = server.requests[1]!.body.messages.slice(1).map((m: any) => m.content)
    expect(contents).toEqual(["first prompt", "one", "second prompt"])
  })

  test("task runs a subagent with its own history and read-only tools, and returns its summary", async () => {
    const root = project({ "src/config.ts": "export const port = 8080\n" })
    const { server, env } = openai([
      { tool_calls: [{ name: "task", arguments: { objective: "Find where the port is configured." }, id: "t1" }] },
      // The subagent's turns.
      { tool_calls: [{ name: "read", arguments: { path: "src/config.ts" }, id: "s1" }] },
      { text: "The port (8080) is set in src/config.ts line 1." },
      // Back in the parent.
      { text: "Port 8080, in src/config.ts." },
    ])
    const r = await runAnvil(["run", "-f", "stream-json", "where is the port set?"], { cwd: root, env })
    expect(r.code).toBe(0)
    const events = jsonLines(r.stdout)
    const nested = events.filter((e) => e.parent_tool_use_id === "t1")
    expect(nested.map((e) => e.type)).toEqual(["assistant", "user", "assistant"])
    expect(toolUses(nested).map((u) => u.name)).toEqual(["read"])
    expect(toolResults(nested)[0].envelope.data.content).toContain("8080")
    const taskResult = toolResults(events).find((e) => e.id === "t1")
    expect(taskResult.envelope.status).toBe("success")
    expect(taskResult.envelope.data.summary).toBe("The port (8080) is set in src/config.ts line 1.")
    expect(taskResult.envelope.text).toContain("The port (8080) is set in src/config.ts line 1.")
    expect(events.at(-1)).toMatchObject({ type: "result", result: "Port 8080, in src/config.ts." })

    const sub = server.requests[1]!.body
    expect(sub.messages.slice(1)).toEqual([{ role: "user", content: "Find where the port is configured." }])
    expect(sub.messages[0].content).toContain("exploration subagent")
    const subTools = sub.tools.map((t: any) => t.function.name)
    expect(subTools).toContain("grep")
    for (const forbidden of ["write", "edit", "bash", "task", "question", "patch"]) expect(subTools).not.toContain(forbidden)
    expect(toolMessages(server.requests[3]!.body)[0].content).toContain("src/config.ts line 1")
  })

  test("429 and 503 are retried (Retry-After honoured) and the run succeeds", async () => {
    const root = project({})
    const { server, env } = openai([{ status: 429, retry_after: "0" }, { status: 503, retry_after: "0" }, { text: "made it" }])
    const r = await runAnvil(["run", "-f", "json", "hello"], { cwd: root, env })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).result).toBe("made it")
    // Each retry is announced on stderr.
    expect(r.stderr.match(/retrying/g)?.length).toBe(2)
    expect(server.requests.length).toBe(3)
  })

  test("an unknown tool and malformed arguments go back as INVALID_PARAM envelopes, not crashes", async () => {
    const root = project({ "a.txt": "a\n" })
    const { server, env } = openai([
      {
        tool_calls: [
          { name: "frobnicate", arguments: { x: 1 }, id: "u1" },
          { name: "read", arguments: '{"path": "a.txt"', id: "u2" },
          { name: "read", arguments: { path: "a.txt", bogus: true }, id: "u3" },
        ],
      },
      { text: "Sorry." },
    ])
    const r = await runAnvil(["run", "-f", "stream-json", "go"], { cwd: root, env })
    expect(r.code).toBe(0)
    const results = toolResults(jsonLines(r.stdout))
    expect(results.map((e) => e.envelope.error?.code)).toEqual(["INVALID_PARAM", "INVALID_PARAM", "INVALID_PARAM"])
    expect(results[0].envelope.error.message).toContain("Unknown tool 'frobnicate'")
    // As Claude Code does, a failed call's tool_use_result is its error as "Error: <message>".
    expect(results[0].tool_use_result).toBe(`Error: ${results[0].envelope.error.message}`)
    expect(results[2].envelope.error.field_errors[0].field).toBe("bogus")
    const back = toolMessages(server.requests[1]!.body)
    expect(back.map((m: any) => m.tool_call_id)).toEqual(["u1", "u2", "u3"])
    expect(back[0].content).toContain("INVALID_PARAM")
  })

  test("plan mode refuses write tools by their Claude or anvil names with the reason and the way out, not 'Unknown tool'", async () => {
    const root = project({ "a.txt": "a\n" })
    const { server, env } = openai([
      {
        tool_calls: [
          { name: "Write", arguments: { file_path: "b.txt", content: "x" }, id: "w1" },
          { name: "edit", arguments: { path: "a.txt", old_string: "a", new_string: "b" }, id: "w2" },
          { name: "Bash", arguments: { command: "touch c.txt" }, id: "w3" },
          { name: "frobnicate", arguments: {}, id: "w4" },
        ],
      },
      { text: "Here is the plan." },
    ])
    const r = await runAnvil(["run", "--plan", "-f", "stream-json", "go"], { cwd: root, env })
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    const results = toolResults(jsonLines(r.stdout))
    expect(results.map((e) => e.envelope.error?.code)).toEqual(["PERMISSION_DENIED", "PERMISSION_DENIED", "PERMISSION_DENIED", "INVALID_PARAM"])
    for (const [i, title] of ["Write", "Edit", "Bash"].entries()) {
      expect(results[i].envelope.error.message).toContain(`Plan mode forbids ${title}`)
      expect(results[i].envelope.error.message).toContain("--profile code")
      expect(results[i].envelope.error.message).not.toContain("Unknown tool")
      expect(results[i].tool_use_result).toStartWith(`Error: Plan mode forbids ${title}`)
    }
    expect(results[3].envelope.error.message).toContain("Unknown tool 'frobnicate'")
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("a\n")
    expect(existsSync(join(root, "b.txt")) || existsSync(join(root, "c.txt"))).toBe(false)
    expect(toolMessages(server.requests[1]!.body)[0].content).toContain("Plan mode forbids Write")
  })

  test("the same failing call three times ends the turn (exit 7); the step limit (exit 6) too", async () => {
    const root = project({})
    const failing = { tool_calls: [{ name: "read", arguments: { path: "missing.txt" } }] }
    const { server, env } = openai([failing, failing, failing])
    const r = await runAnvil(["run", "-f", "json", "read it"], { cwd: root, env })
    expect(r.code).toBe(7)
    const obj = JSON.parse(r.stdout)
    expect(obj).toMatchObject({ subtype: "error_during_execution", is_error: true, reason: "repeated_failure", exit_code: 7 })
    expect(obj.errors[0]).toContain("missing.txt")
    expect(server.requests.length).toBe(3)
    // The second failure carried a warning to the model.
    expect(toolMessages(server.requests[2]!.body).at(-1).content).toContain("failed 2 times")

    server.push({ tool_calls: [{ name: "list", arguments: {} }] }, { tool_calls: [{ name: "list", arguments: {} }] })
    const limited = await runAnvil(["run", "--max-steps", "1", "-f", "json", "loop"], { cwd: root, env })
    expect(limited.code).toBe(6)
    expect(JSON.parse(limited.stdout)).toMatchObject({ subtype: "error_max_turns", is_error: true, reason: "max_steps" })
  })

  test("the ReAct engine drives a text-only model: Thought / Action / Observation / Final Answer", async () => {
    const root = project({})
    const { server, env } = openai([
      { text: 'Thought: I should compute it.\nAction: calculator[{"expression": "6*7"}]' },
      { text: "Thought: I have the result.\nFinal Answer: 42" },
    ])
    const r = await runAnvil(["run", "--engine", "react", "-f", "stream-json", "what is 6*7?"], { cwd: root, env })
    expect(r.code).toBe(0)
    const events = jsonLines(r.stdout)
    expect(events[0].engine).toBe("react")
    const first = events.find((e) => e.type === "assistant")
    expect(first.react).toEqual({ thought: "I should compute it.", action: "calculator", action_input: '{"expression": "6*7"}' })
    const obs = toolResults(events)[0]
    expect(obs.envelope.data.result).toBe("42")
    expect(events.at(-1)).toMatchObject({ type: "result", result: "42" })
    const req1 = server.requests[0]!.body
    expect(req1.tools).toBeUndefined()
    expect(req1.stop).toContain("\nObservation:")
    expect(req1.messages[0].content).toContain("Final Answer:")
    const req2 = server.requests[1]!.body
    expect(req2.messages.at(-1).role).toBe("user")
    expect(req2.messages.at(-1).content).toStartWith("Observation: # Calculator")
  })

  test("auto-verification runs after a turn that changed code, its failure goes back to the model; a docs-only turn skips it", async () => {
    const root = project({ "anvil.json": JSON.stringify({ verify: "echo run >> verify.log; test -f src/ok.ts" }) })
    // Trusted, the project's verify runs whether or not the command sandbox can start here (test/trust/project-verify.test.ts covers the untrusted case).
    expect((await runAnvil(["config", "trust", "verify"], { cwd: root })).stdout).toContain("Trusted for this project: verify")
    const { server, env } = openai([
      { tool_calls: [{ name: "write", arguments: { path: "docs/guide.md", content: "# Guide\n" } }] },
      { text: "Docs written." },
      { tool_calls: [{ name: "write", arguments: { path: "src/app.ts", content: "export {}\n" } }] },
      { text: "Code written." },
      { tool_calls: [{ name: "write", arguments: { path: "src/ok.ts", content: "export const ok = true\n" } }] },
      { text: "Fixed; the check passes." },
    ])
    const docs = await runAnvil(["run", "--yes", "-f", "stream-json", "write the guide"], { cwd: root, env })
    expect(docs.code).toBe(0)
    expect(jsonLines(docs.stdout).some((e) => e.subtype === "verify")).toBe(false)
    expect(existsSync(join(root, "verify.log"))).toBe(false)
    const code = await runAnvil(["run", "--yes", "-f", "stream-json", "write the app"], { cwd: root, env })
    expect(code.code).toBe(0)
    const events = jsonLines(code.stdout)
    const verifies = events.filter((e) => e.subtype === "verify")
    expect(verifies.map((v) => [v.passed, v.exit_code])).toEqual([
      [false, 1],
      [true, 0],
    ])
    expect(readFileSync(join(root, "verify.log"), "utf8")).toBe("run\nrun\n")
    expect(events.at(-1)).toMatchObject({ result: "Fixed; the check passes.", stats: { verifications: 2 } })
    // The failure went back to the model as a user message.
    const afterFailure = server.requests[4]!.body.messages.at(-1)
    expect(afterFailure.role).toBe("user")
    expect(afterFailure.content).toContain("Auto-verification failed")
    expect(afterFailure.content).toContain("exited 1")
  })

  test("a refused key ends the turn at once (no retry): an API error as Claude Code reports it, naming the key, exit 1", async () => {
    const root = project({})
    const { server, env } = openai([{ status: 401, error_body: '{"error":{"message":"invalid api key"}}' }])
    const r = await runAnvil(["run", "-f", "stream-json", "hello"], { cwd: root, env })
    expect(r.code).toBe(1)
    const events = jsonLines(r.stdout)
    expect(streamProblems(events)).toEqual([])
    expect(events.map((e) => e.type)).toEqual(["system", "assistant", "result"])
    // A synthetic assistant message with the error's kind, then a success-subtype result flagged is_error.
    expect(events[1]).toMatchObject({ error: "authentication_failed", message: { model: "<synthetic>" } })
    expect(events[1].message.content[0].text).toContain("invalid api key")
    expect(events[2]).toMatchObject({ subtype: "success", is_error: true, api_error_status: 401, terminal_reason: "api_error", reason: "model_error", exit_code: 1 })
    expect(events[2].result).toContain("invalid api key")
    expect(events[2].errors[0]).toContain("OPENAI_API_KEY")
    expect(events[2].errors[0]).toContain("invalid api key")
    expect(r.stderr).toContain("invalid api key")
    expect(r.stderr).not.toContain("retrying")
    expect(server.requests.length).toBe(1)
  })

  test("--show-raw prints the raw model responses on stderr", async () => {
    const root = project({})
    const { env } = openai([{ text: "hi there" }])
    const r = await runAnvil(["run", "--show-raw", "hello"], { cwd: root, env })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe("hi there\n")
    expect(r.stderr).toContain("[raw]")
    expect(r.stderr).toContain("chat.completion.chunk")
    expect(r.stderr).toContain("[DONE]")
  })

  test("the HelloAgents-style test profile with its variables (LLM_MODEL_ID / LLM_BASE_URL / LLM_API_KEY): ReAct by default", async () => {
    const root = project({})
    const server = fakeOpenAI([{ text: 'Thought: add\nAction: calculator[{"expression": "2+3"}]' }, { text: "Final Answer: 5" }])
    servers.push(server)
    const env = { LLM_MODEL_ID: "hello-model", LLM_BASE_URL: server.url, LLM_API_KEY: "hk" }
    const r = await runAnvil(["run", "--profile", "test", "-f", "json", "2+3?"], { cwd: root, env })
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "5", model: "llm/hello-model" })
    expect(server.requests[0]!.body.model).toBe("hello-model")
    expect(server.requests[0]!.headers.authorization).toBe("Bearer hk")
    expect(server.requests[0]!.body.messages[0].content).toContain("### calculator")
    expect(server.requests[0]!.body.messages[0].content).not.toContain("### bash")
  })

  test("SIGINT cancels the running tool, the run reports interrupted and exits 130", async () => {
    const root = project({})
    const { env } = openai([{ tool_calls: [{ name: "bash", arguments: { command: "sleep 32.5" } }] }, { text: "never" }])
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "..", "..", "src", "main.ts"), "run", "--allow", "bash:sleep *", "-f", "stream-json", "wait"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    })
    const reader = proc.stdout.getReader()
    let out = ""
    while (!out.includes('"type":"tool_use"')) {
      const { done, value } = await reader.read()
      if (done) break
      out += new TextDecoder().decode(value)
    }
    await Bun.sleep(300)
    proc.kill("SIGINT")
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      out += new TextDecoder().decode(value)
    }
    expect(await proc.exited).toBe(130)
    const events = jsonLines(out)
    expect(toolResults(events)[0].envelope.error.code).toBe("CANCELLED")
    expect(events.at(-1)).toMatchObject({ type: "result", is_error: true, reason: "interrupted", signal: "SIGINT", exit_code: 130 })
    expect(Bun.spawnSync(["pgrep", "-f", "sleep 32.5"]).exitCode).not.toBe(0)
  })

  test("nothing configured is a clear configuration error naming what to set (exit 3); a bad flag is a usage error (exit 2)", async () => {
    const root = project({})
    const r = await runAnvil(["run", "hello"], { cwd: root })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain("OPENAI_API_KEY")
    expect(r.stderr).toContain("ANTHROPIC_API_KEY")
    expect(r.stderr).toContain("LLM_MODEL_ID")
    const bad = await runAnvil(["run", "--max-steps", "zero", "x"], { cwd: root })
    expect(bad.code).toBe(2)
    expect(readdirSync(root)).not.toContain(".anvil")
  })
})

describe("anvil run against a fake Anthropic server", () => {
  test("tool_use blocks run and come back as tool_result blocks", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const server = fakeAnthropic([
      { text: "Reading.", tool_calls: [{ name: "read", arguments: { path: "a.txt" }, id: "toolu_a" }, { name: "list", arguments: {}, id: "toolu_l" }] },
      { text: "It says alpha." },
    ])
    servers.push(server)
    const env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "ak-test", ANVIL_MODEL: "anthropic/claude-test" }
    const r = await runAnvil(["run", "-f", "stream-json", "read a.txt"], { cwd: root, env })
    expect(r.code).toBe(0)
    const events = jsonLines(r.stdout)
    expect(events.map((e) => e.type)).toEqual(["system", "assistant", "user", "user", "assistant", "result"])
    expect(events.at(-1)).toMatchObject({ result: "It says alpha.", model: "anthropic/claude-test" })
    const second = server.requests[1]!.body
    expect(server.requests[0]!.headers["x-api-key"]).toBe("ak-test")
    expect(second.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"])
    expect(second.messages[1].content).toEqual([
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_a", name: "read", input: { path: "a.txt" } },
      { type: "tool_use", id: "toolu_l", name: "list", input: {} },
    ])
    const results = second.messages[2].content
    expect(results.map((b: any) => [b.type, b.tool_use_id])).toEqual([
      ["tool_result", "toolu_a"],
      ["tool_result", "toolu_l"],
    ])
    expect(results[0].content).toStartWith("# Read: a.txt")
  })
})
