import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runProcess, toolResults } from "../support/anvil-cli.ts"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { resultProblems, streamProblems } from "../support/claude-shapes.ts"
import { openaiRuns } from "../support/openai-run.ts"
import { project } from "../support/harness.ts"

// `anvil run` as scripts and CI drive it, through the compiled executable against the fake model server.
setDefaultTimeout(60_000)

beforeAll(() => void anvilBinary(), 120_000)
const openai = openaiRuns()

/** Runs a shell script in `root` with the binary as $ANVIL (a removed working directory cannot be given to spawn). */
const runProcessIn = (root: string, script: string) => runProcess(["/bin/sh", "-c", script], { cwd: root, env: { ANVIL: anvilBinary() } })

const sessionFiles = (root: string) =>
  existsSync(join(root, ".anvil", "sessions")) ? readdirSync(join(root, ".anvil", "sessions")).filter((f) => f.endsWith(".jsonl")) : []

describe("anvil run for scripts", () => {
  test("stream-json and json read as Claude Code's -p output: init, assistant, user/tool_result, result; a denial exits 4 and is listed", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const { env } = openai([
      { text: "Looking.", tool_calls: [{ name: "read", arguments: { path: "a.txt" }, id: "c1" }, { name: "task", arguments: { objective: "Read a.txt." }, id: "t1" }] },
      // The subagent.
      { tool_calls: [{ name: "read", arguments: { path: "a.txt" }, id: "s1" }], usage: { input_tokens: 50, output_tokens: 5 } },
      { text: "a.txt holds alpha.", usage: { input_tokens: 60, output_tokens: 6 } },
      // Back in the parent: a call that needs approval, denied without a terminal.
      { tool_calls: [{ name: "write", arguments: { path: "made.txt", content: "x\n" }, id: "b1" }], usage: { input_tokens: 200, output_tokens: 20 } },
      { text: "I could not create the file.", usage: { input_tokens: 300, output_tokens: 30 } },
    ])
    const r = await runBinary(["run", "--format", "stream-json", "make a file"], { cwd: root, env })
    expect(r.code).toBe(4)
    const messages = jsonLines(r.stdout)
    expect(streamProblems(messages)).toEqual([])
    expect(messages[0].skills).toContain("create-skill")
    expect(messages.map((m) => m.type)).toEqual(["system", "assistant", "assistant", "user", "assistant", "user", "user", "assistant", "user", "assistant", "result"])
    // The subagent's messages name the task call they belong to.
    expect(messages.filter((m) => m.parent_tool_use_id === "t1").map((m) => m.type)).toEqual(["assistant", "user", "assistant"])
    const results = toolResults(messages)
    expect(results.find((t) => t.id === "b1")).toMatchObject({ is_error: true, envelope: { error: { code: "PERMISSION_DENIED" } } })
    expect(results.find((t) => t.id === "c1")!.execution_meta.tool_call_id).toBe("c1")
    const result = messages.at(-1)!
    expect(result).toMatchObject({
      subtype: "error_during_execution",
      is_error: true,
      reason: "permission_denied",
      exit_code: 4,
      result: "I could not create the file.",
      num_turns: 3,
      permission_denials: [{ tool_name: "write", tool_use_id: "b1", tool_input: { path: "made.txt", content: "x\n" } }],
    })
    // Usage counts the subagent's requests too.
    expect(result.usage.subagents).toEqual({ input_tokens: 110, output_tokens: 11, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 })
    expect(result.usage.input_tokens).toBe(100 + 110 + 200 + 300)
    expect(result.errors[0]).toContain("--allow")
    expect(existsSync(join(root, "made.txt"))).toBe(false)

    // json: the result message alone, same shape; stdin is attached after the prompt argument.
    const { server: s2, env: env2 } = openai([{ text: "Looks fine." }])
    const json = await runBinary(["run", "-f", "json", "review this"], { cwd: root, env: env2, stdin: "diff --git a/x b/x\n+added line\n" })
    expect(json.code).toBe(0)
    expect(json.stdout.trim().split("\n").length).toBe(1)
    const obj = JSON.parse(json.stdout)
    expect(resultProblems(obj)).toEqual([])
    expect(obj).toMatchObject({ type: "result", subtype: "success", is_error: false, result: "Looks fine.", permission_denials: [], exit_code: 0 })
    const sent = s2.requests[0]!.body.messages[1].content as string
    expect(sent.startsWith("review this")).toBe(true)
    expect(sent).toContain("+added line")
  })

  test("a stdin left open by the parent does not hang a run that has its prompt", async () => {
    const root = project({})
    const { server, env } = openai([{ text: "Answered." }])
    const proc = Bun.spawn([anvilBinary(), "run", "hello"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, NO_COLOR: "1", ...env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    proc.stdin.end()
    expect({ code, out }).toEqual({ code: 0, out: "Answered.\n" })
    expect(err).toContain("nothing arrived on standard input within 3 s")
    expect(server.requests[0]!.body.messages[1].content).toBe("hello")
  })

  test("a verify command that still fails at the end exits 5", async () => {
    const root = project({ "anvil.json": JSON.stringify({ verify: "echo broken >&2; exit 3" }) })
    // Trusted, the project's verify runs whether or not the command sandbox can start here.
    expect((await runBinary(["config", "trust", "verify"], { cwd: root })).stdout).toContain("Trusted for this project: verify")
    const { server, env } = openai([
      { tool_calls: [{ name: "write", arguments: { path: "src/a.ts", content: "export const a = 1\n" } }] },
      { text: "Done." },
      { text: "The check fails for reasons outside my change." },
    ])
    const r = await runBinary(["run", "--yes", "-f", "json", "add a"], { cwd: root, env })
    expect(r.code).toBe(5)
    const obj = JSON.parse(r.stdout)
    expect(resultProblems(obj)).toEqual([])
    expect(obj).toMatchObject({ is_error: true, reason: "verify_failed", exit_code: 5, result: "The check fails for reasons outside my change." })
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain("Auto-verification failed")
  })

  test("a stalled stream and a silent server end with a timeout error within --timeout; a dead host and a 400 are not retried", async () => {
    const root = project({})
    const { env } = openai([{ text: "never finished", hang_after_frames: 2 }, { text: "late", delay_ms: 4000 }])
    const stalled = await runBinary(["run", "--timeout", "1", "-f", "json", "hello"], { cwd: root, env })
    expect(stalled.code).toBe(1)
    expect(JSON.parse(stalled.stdout).errors[0]).toContain("stalled: nothing arrived for 1 s")
    expect(stalled.ms).toBeLessThan(3500)
    const silent = await runBinary(["run", "--timeout", "1s", "hello"], { cwd: root, env })
    expect(silent.code).toBe(1)
    expect(silent.stderr).toContain("did not answer within 1 s")
    expect(silent.ms).toBeLessThan(3500)

    const dead = await runBinary(["run", "hello"], { cwd: root, env: { ...env, OPENAI_BASE_URL: "http://anvil-no-such-host.invalid/v1" } })
    expect(dead.code).toBe(1)
    expect(dead.stderr).toContain("does not resolve")
    expect(dead.stderr).not.toContain("retrying")
    expect(dead.stderr.match(/anvil run:/g)?.length).toBe(1)

    const { server, env: env400 } = openai([{ status: 400, error_body: '{"error":{"message":"bad field"}}' }, { text: "unreached" }])
    const bad = await runBinary(["run", "hello"], { cwd: root, env: env400 })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("bad field")
    expect(server.requests.length).toBe(1)
  })

  test("--input-format stream-json: each user message is a turn of one session, each with its result", async () => {
    const root = project({})
    const { server, env } = openai([{ text: "Noted: blue." }, { text: "You said blue." }, { text: "I cannot see images." }])
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
    const input = [
      JSON.stringify({ type: "user", message: { role: "user", content: "my colour is blue" } }),
      "not json",
      JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "what is my colour?" }] } }),
      // A block anvil cannot pass on is named to the model, never dropped without a word (an image alone is still a turn).
      JSON.stringify({ type: "user", message: { role: "user", content: [image] } }),
    ].join("\n")
    const r = await runBinary(["run", "--input-format", "stream-json", "--format", "stream-json"], { cwd: root, env, stdin: `${input}\n` })
    expect(r.code).toBe(0)
    const messages = jsonLines(r.stdout)
    const results = messages.filter((m) => m.type === "result")
    expect(results.map((m) => m.result)).toEqual(["Noted: blue.", "You said blue.", "I cannot see images."])
    expect(server.requests[2]!.body.messages.at(-1).content).toBe("[The user's message had an image block here, which anvil does not pass on to the model.]")
    expect(streamProblems(messages.slice(0, messages.indexOf(results[0])! + 1))).toEqual([])
    expect(new Set(messages.map((m) => m.session_id)).size).toBe(1)
    expect(r.stderr).toContain("input line 2: not valid JSON")
    expect(server.requests[1]!.body.messages.slice(1).map((m: any) => m.content)).toEqual(["my colour is blue", "Noted: blue.", "what is my colour?"])
  })

  test("a 27 MB prompt is refused before it is sent (exit 1, PROMPT_TOO_LONG with a next step); in stream-json input the session goes on", async () => {
    const root = project({})
    const { server, env } = openai([{ text: "Small one answered." }])
    const huge = "word ".repeat(5_500_000)
    const plain = await runBinary(["run", "--format", "json"], { cwd: root, env, stdin: huge })
    expect(plain.code).toBe(1)
    const result = JSON.parse(plain.stdout)
    expect(result).toMatchObject({ type: "result", is_error: true, reason: "prompt_too_long", exit_code: 1 })
    expect(result.errors[0]).toMatch(/^PROMPT_TOO_LONG: the prompt \(27,499,99\d characters.*cannot fit the context window of openai\/gpt-test \(128,000 tokens.*Next step: /)
    expect(plain.stderr).toContain("PROMPT_TOO_LONG")
    expect(server.requests.length).toBe(0)
    const input = [huge, "and a small one"].map((content) => JSON.stringify({ type: "user", message: { role: "user", content } })).join("\n")
    const streamed = await runBinary(["run", "--input-format", "stream-json", "--format", "stream-json"], { cwd: root, env, stdin: `${input}\n` })
    const results = jsonLines(streamed.stdout).filter((m) => m.type === "result")
    expect(results.map((m) => [m.reason, m.result])).toEqual([["prompt_too_long", ""], ["completed", "Small one answered."]])
    expect(server.requests.length).toBe(1)
    expect(server.requests[0]!.body.messages.slice(1).map((m: any) => m.content)).toEqual(["and a small one"])
  })

  test("--input-format stream-json: an interrupt control request cancels the turn in flight, answered; the next message runs", async () => {
    const root = project({})
    const { server, env } = openai([{ text: "too late", delay_ms: 20_000 }, { text: "Second answered." }])
    const proc = Bun.spawn([anvilBinary(), "run", "--input-format", "stream-json", "--format", "stream-json"], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, ...env },
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    })
    const send = (message: unknown) => proc.stdin.write(`${JSON.stringify(message)}\n`)
    const started = performance.now()
    send({ type: "user", message: { role: "user", content: "first" } })
    for (let i = 0; i < 200 && server.requests.length === 0; i++) await Bun.sleep(25)
    send({ type: "control_request", request_id: "i1", request: { subtype: "interrupt" } })
    send({ type: "control_request", request_id: "m1", request: { subtype: "set_model", model: "x" } })
    send({ type: "user", message: { role: "user", content: "second" } })
    proc.stdin.end()
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
    const messages = jsonLines(stdout)
    expect(performance.now() - started).toBeLessThan(15_000)
    expect(messages.filter((m) => m.type === "result").map((m) => [m.reason, m.result])).toEqual([["cancelled", ""], ["completed", "Second answered."]])
    const answers = messages.filter((m) => m.type === "control_response").map((m) => m.response)
    expect(answers[0]).toEqual({ subtype: "success", request_id: "i1", response: {} })
    expect(answers[1]).toMatchObject({ subtype: "error", request_id: "m1", error: expect.stringContaining("only the 'interrupt' control request") })
    expect(code).toBe(0)
  })

  test("--continue takes the last session with an answer and its model and profile; empty sessions are not kept; prune", async () => {
    const root = project({})
    const { server, env } = openai([
      { text: "First answer." },
      { status: 401 },
      { text: "Continued." },
    ])
    const first = await runBinary(["run", "--model", "openai/other-model", "--profile", "plan", "-f", "json", "first"], { cwd: root, env })
    expect(first.code).toBe(0)
    const id = JSON.parse(first.stdout).session_id
    const failed = await runBinary(["run", "-f", "json", "second"], { cwd: root, env })
    expect(failed.code).toBe(1)
    // A chat given no prompt leaves no session behind.
    const chat = await runBinary(["chat"], { cwd: root, env, stdin: "" })
    expect(chat.code).toBe(0)
    expect(sessionFiles(root).length).toBe(2)

    const cont = await runBinary(["run", "--continue", "-f", "stream-json", "and now?"], { cwd: root, env })
    expect(cont.code).toBe(0)
    const init = jsonLines(cont.stdout)[0]
    expect(init).toMatchObject({ session_id: id, resumed: true, model: "openai/other-model", profile: "plan" })
    expect(server.requests[2]!.body.model).toBe("other-model")
    expect(server.requests[2]!.body.messages.slice(1).map((m: any) => m.content)).toEqual(["first", "First answer.", "and now?"])

    // prune: by age, and sessions that never finished a turn once they are an hour old.
    const dir = join(root, ".anvil", "sessions")
    const old = new Date(Date.now() - 10 * 86_400_000)
    utimesSync(join(dir, `${id}.jsonl`), old, old)
    writeFileSync(join(dir, "20200101-000000-abcd.jsonl"), `${JSON.stringify({ type: "session", version: 1, id: "20200101-000000-abcd", created_at: "2020-01-01T00:00:00Z", cwd: ".", model: "m", profile: "code", engine: "native" })}\n`)
    const hourAgo = new Date(Date.now() - 2 * 3_600_000)
    utimesSync(join(dir, "20200101-000000-abcd.jsonl"), hourAgo, hourAgo)
    // A file with nothing in it (a start cut short) is empty too; a damaged one with content is kept.
    writeFileSync(join(dir, "20200101-000000-zero.jsonl"), "")
    utimesSync(join(dir, "20200101-000000-zero.jsonl"), hourAgo, hourAgo)
    writeFileSync(join(dir, "20200101-000000-dmgd.jsonl"), "not a session\n")
    utimesSync(join(dir, "20200101-000000-dmgd.jsonl"), hourAgo, hourAgo)
    const pruned = await runBinary(["sessions", "prune", "--older-than", "7d", "--json"], { cwd: root, env })
    expect(pruned.code).toBe(0)
    expect(JSON.parse(pruned.stdout).removed.sort()).toEqual([id, "20200101-000000-abcd", "20200101-000000-zero"].sort())
    rmSync(join(dir, "20200101-000000-dmgd.jsonl"))
    expect(sessionFiles(root).length).toBe(1)
    const badAge = await runBinary(["sessions", "prune", "--older-than", "soon"], { cwd: root, env })
    expect(badAge.code).toBe(2)
  })

  test("clear errors: a missing --root folder (exit 3, nothing created), an --allow naming no tool (exit 2), one prefix each", async () => {
    const root = project({})
    const { env } = openai([])
    const missing = await runBinary(["--root", "nowhere", "run", "hi"], { cwd: root, env })
    expect(missing.code).toBe(3)
    expect(missing.stderr).toStartWith("anvil: --root nowhere: no such folder")
    expect(existsSync(join(root, "nowhere"))).toBe(false)
    const typo = await runBinary(["run", "--allow", "bsh:ls", "hi"], { cwd: root, env })
    expect(typo.code).toBe(2)
    expect(typo.stderr).toStartWith("anvil run: --allow bsh:ls names no tool 'bsh' (did you mean 'bash'?)")
    const flag = await runBinary(["run", "--max-steps", "0", "hi"], { cwd: root, env })
    expect(flag.code).toBe(2)
    // Claude's print mode: a value its flag cannot take is a usage error, not a run in some other format.
    const format = await runBinary(["-p", "hi", "--output-format", "yaml"], { cwd: root, env })
    expect(format.code).toBe(2)
    expect(format.stderr).toStartWith("anvil: --output-format is text, json, stream-json; not 'yaml'")
    expect(format.stdout).toBe("")
    for (const out of [missing.stderr, typo.stderr, flag.stderr]) expect(out).not.toContain("anvil: anvil")
  })

  test("claude -p's options that anvil run has no flag for still apply: --disallowedTools, acceptEdits, --append-system-prompt", async () => {
    const root = project({})
    const { server, env } = openai([
      { tool_calls: [{ name: "bash", arguments: { command: "echo x > made.txt" }, id: "b1" }, { name: "write", arguments: { path: "w.txt", content: "w\n" }, id: "w1" }] },
      { text: "Done what I could." },
    ])
    const r = await runBinary(["-p", "go", "--disallowedTools", "Bash", "--permission-mode", "acceptEdits", "--append-system-prompt", "EXTRA-RULE", "--output-format", "json"], { cwd: root, env })
    expect(r.code).toBe(4)
    expect(JSON.parse(r.stdout).permission_denials).toEqual([{ tool_name: "bash", tool_use_id: "b1", tool_input: { command: "echo x > made.txt" } }])
    expect(existsSync(join(root, "made.txt"))).toBe(false)
    expect(existsSync(join(root, "w.txt"))).toBe(true)
    expect(JSON.stringify(server.requests[0]!.body.messages[0])).toContain("EXTRA-RULE")
  })

  test("started in a folder that was removed: one clear line and exit 2 for any command; --version and --help still answer", async () => {
    const root = project({})
    const inRemoved = (args: string) => runProcessIn(root, `mkdir gone && cd gone && rmdir ../gone && exec "$ANVIL" ${args}`)
    for (const args of [`tool read '{"path":"a.txt"}'`, "run hello", "sessions", "-p hello --output-format json"]) {
      const r = await inRemoved(args)
      expect(r.code).toBe(2)
      expect(r.stdout).toBe("")
      expect(r.stderr).toBe(
        'anvil: the working directory no longer exists (it was deleted or moved). cd into an existing directory (or `cd "$PWD"` if it was recreated at the same path) and run anvil again.\n',
      )
    }
    const version = await inRemoved("--version")
    expect(version.code).toBe(0)
    expect(version.stdout).toStartWith("anvil ")
    const help = await inRemoved("--help")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("Usage:")
  })

  test("help lists every command, and 'anvil help COMMAND' answers for each", async () => {
    const root = project({})
    const help = await runBinary(["help"], { cwd: root })
    expect(help.code).toBe(0)
    const commands = ["chat", "run", "sessions", "skills", "tool", "tools", "plugins", "mcp", "self-check", "help"]
    for (const c of commands) expect(help.stdout).toContain(`anvil ${c}`)
    for (const c of commands) expect((await runBinary(["help", c], { cwd: root })).code).toBe(0)
    expect((await runBinary(["help", "nope"], { cwd: root })).code).toBe(2)
  })
})
