import { describe, expect, test } from "bun:test"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/binary.ts"
import { project } from "../support/harness.ts"
import { printFakes } from "../support/print-fakes.ts"

// Claude Code's --debug and --debug-file (the Agent SDK's debug and debugFile) through the compiled binary: a log of
// what the program sent, what anvil answered and what it said on stderr, written where asked.
const { anthropic } = printFakes()
const host = ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--model", "claude-haiku-4-5"]
const initialize = `${JSON.stringify({ type: "control_request", request_id: "r1", request: { subtype: "initialize" } })}\n`
const userLine = (text: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`
const entries = (log: string, direction: string) => log.split("\n").filter((l) => /^\d{4}-\d\d-\d\dT[\d:.]+Z \[/.test(l) && l.includes(` [${direction}] `))

describe("--debug-file", () => {
  test("the host's log: each line in, each line out, each diagnostic, timed; its folder is made", async () => {
    const { env } = anthropic([{ text: "hello" }])
    const root = project({})
    const r = await runBinary([...host, "--debug-file", "logs/debug.txt"], { cwd: root, env, stdin: initialize + "not json\n" + userLine("hi") })
    expect(r.code).toBe(0)
    const log = readFileSync(join(root, "logs/debug.txt"), "utf8")
    expect(entries(log, "note")[0]).toContain("debug log")
    expect(entries(log, "in").map((l) => l.split("] ")[1])).toEqual([initialize.trim(), "line 2: not valid JSON", "user message: hi"])
    const out = entries(log, "out").map((l) => JSON.parse(l.split("] ").slice(1).join("] ")).type ?? "")
    expect(out).toEqual(["control_response", "system", "assistant", "result"].filter((t) => out.includes(t)))
    expect(out).toContain("result")
    expect(entries(log, "stderr").join("\n")).toContain("input line 2: not valid JSON; skipped")
    // The program's stdout and stderr are what they were without the flag.
    expect(r.stdout).not.toContain("[out]")
    expect(r.stderr).not.toContain("[in]")
  })

  test("claude -p with one prompt logs its output too; a second run appends", async () => {
    const { env } = anthropic([{ text: "one" }, { text: "two" }])
    const root = project({})
    for (const prompt of ["a", "b"]) await runBinary(["-p", prompt, "--output-format", "json", "--model", "claude-haiku-4-5", "--debug-file", "d.txt"], { cwd: root, env })
    const log = readFileSync(join(root, "d.txt"), "utf8")
    expect(entries(log, "note").length).toBe(2)
    expect(entries(log, "out").map((l) => JSON.parse(l.split("] ").slice(1).join("] ")).result)).toEqual(["one", "two"])
  })

  test("a file that cannot be written is a usage error naming debugFile; nothing runs", async () => {
    const { server, env } = anthropic([{ text: "never" }])
    const root = project({ "afile.txt": "x\n" })
    // A folder where the file should be, and a file where its folder should be: refused whoever runs it.
    mkdirSync(join(root, "adir"))
    for (const file of [join(root, "adir"), join(root, "afile.txt", "d.txt")]) {
      const r = await runBinary([...host, "--debug-file", file], { cwd: root, env, stdin: userLine("hi") })
      expect(r.code).toBe(2)
      expect(r.stderr).toContain(`--debug-file '${file}' cannot be written`)
      expect(r.stderr).toContain("debugFile")
      expect(r.stdout).toBe("")
    }
    expect(server.requests.length).toBe(0)
  })
})

describe("--debug", () => {
  test("alone, the log goes to stderr (the SDK's stderr callback), stdout unchanged", async () => {
    const { env } = anthropic([{ text: "hello" }])
    const r = await runBinary([...host, "--debug"], { cwd: project({}), env, stdin: userLine("hi") })
    expect(r.code).toBe(0)
    expect(entries(r.stderr, "in")).toEqual([expect.stringContaining("user message: hi")])
    expect(entries(r.stderr, "out").some((l) => l.includes('"type":"result"'))).toBe(true)
    expect(r.stdout.trim().split("\n").every((l) => JSON.parse(l).type !== undefined)).toBe(true)
    expect(r.stdout).not.toContain("ignored_flags")
  })
})

describe("the model's HTTP in the debug log", () => {
  const key = "sk-ant-very-secret-key-0123456789"
  const http = (log: string) => entries(log, "http").map((l) => l.split("] ").slice(1).join("] "))

  test("each request: method, URL, body size, status and time to headers, the body's end; never the key", async () => {
    const { env, server } = anthropic([{ status: 500, error_body: "boom" }, { text: "hello" }])
    const root = project({})
    // Credentials in the base URL (a proxy's user and password) are masked as well.
    const base = server.url.replace("http://", "http://proxyuser:proxypass@")
    const r = await runBinary([...host, "--debug-file", "d.txt"], { cwd: root, env: { ...env, ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: base }, stdin: userLine("hi") })
    expect(r.code).toBe(0)
    const log = readFileSync(join(root, "d.txt"), "utf8")
    const url = `${server.url.replace("http://", "http://REDACTED:REDACTED@")}/v1/messages`
    const lines = http(log)
    // The failed attempt, then the retry that answered, in order.
    expect(lines.map((l) => l.replace(/\d+ (ms|bytes)/g, "N $1"))).toEqual([
      `POST ${url} (N bytes)`,
      `POST ${url} -> 500 Internal Server Error, headers in N ms`,
      `POST ${url} body ended: N bytes in N ms`,
      `POST ${url} (N bytes)`,
      `POST ${url} -> 200 OK, headers in N ms`,
      `POST ${url} body ended: N bytes in N ms`,
    ])
    expect(Number(lines[0]!.match(/\((\d+) bytes\)/)![1])).toBe(server.requests[0]!.bytes)
    expect(Number(lines[5]!.match(/: (\d+) bytes/)![1])).toBeGreaterThan(0)
    // Nor in what the program reads: the retried failure's message names the server without them.
    for (const secret of [key, "proxyuser", "proxypass"]) for (const text of [log, r.stdout, r.stderr]) expect(text).not.toContain(secret)
    expect(r.stdout).toContain(`The model server failed (HTTP 500) at ${url}`)
    expect(server.requests[1]!.headers["x-api-key"]).toBe(key)
  })

  test("--debug writes them on stderr; a server that cannot be reached is logged as a failure with its time", async () => {
    const { env } = anthropic([{ text: "hello" }])
    const r = await runBinary([...host, "--debug"], { cwd: project({}), env, stdin: userLine("hi") })
    expect(http(r.stderr)).toEqual([expect.stringMatching(/^POST http:\/\/127\.0\.0\.1:\d+\/v1\/messages \(\d+ bytes\)$/), expect.stringContaining("-> 200 OK"), expect.stringContaining("body ended")])
    // A port nothing listens on (the fake's, stopped).
    const dead = anthropic([])
    dead.server.stop()
    const failed = await runBinary(["-p", "hi", "--model", "claude-haiku-4-5", "--debug"], { cwd: project({}), env: { ...dead.env, ANTHROPIC_API_KEY: key } })
    expect(http(failed.stderr).some((l) => /failed after \d+ ms: /.test(l))).toBe(true)
    expect(failed.stderr).not.toContain(key)
  })
})
