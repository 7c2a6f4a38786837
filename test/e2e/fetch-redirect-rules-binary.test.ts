import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonLines, runProcess, toolResults } from "../support/anvil-cli.ts"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { openaiRuns } from "../support/openai-run.ts"
import { project, tempDir } from "../support/harness.ts"

// The fetch rules judge every host a call reaches: a page on an allowed host that redirects to a denied one (or to
// one the rules ask about) is not followed, and a host written another way (`localhost.`) is the same host to a rule.
setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)
const openai = openaiRuns()

/** Paths the server was asked for, with the host each request named. */
const reached: Array<string> = []
const server: ReturnType<typeof Bun.serve> = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req): Response => {
    const url = new URL(req.url)
    reached.push(`${url.hostname}${url.pathname}`)
    if (url.pathname === "/go") return new Response(null, { status: 302, headers: { location: `http://localhost:${server.port}/secret` } })
    return new Response(`the page at ${url.pathname}`, { headers: { "content-type": "text/plain" } })
  },
})
afterAll(() => server.stop(true))
const at = (host: string, path: string) => `http://${host}:${server.port}${path}`

/** A project and a home whose own anvil.json holds `permission`. */
const setUp = (permission: unknown) => {
  const home = tempDir("anvil-home-")
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ permission }))
  const root = project({ "a.txt": "a\n" }, { marker: false })
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  return { root, home }
}

const runFetch = async (permission: unknown, url: string, flags: ReadonlyArray<string> = []) => {
  const { root, home } = setUp(permission)
  const { env } = openai([{ tool_calls: [{ name: "fetch", arguments: { url }, id: "f1" }] }, { text: "Done." }])
  const r = await runProcess([anvilBinary(), "run", "-f", "stream-json", ...flags, "read the page"], { cwd: root, env: { ...env, HOME: home } })
  return toolResults(jsonLines(r.stdout)).find((t) => t.id === "f1")!
}

test("a redirect from an allowed host to a denied one is refused with the rule, and no request goes there", async () => {
  reached.length = 0
  const result = await runFetch({ fetch: { "127.0.0.1": "allow", localhost: "deny" } }, at("127.0.0.1", "/go"))
  expect(result.envelope.error.code).toBe("PERMISSION_DENIED")
  expect(result.envelope.error.message).toContain(`HTTP 302 from ${at("127.0.0.1", "/go")} redirects to ${at("localhost", "/secret")}: not followed.`)
  expect(result.envelope.error.message).toContain(`denied by the rule "fetch": {"localhost": "deny"}`)
  expect(result.envelope.context.redirect_to).toBe(at("localhost", "/secret"))
  expect(reached).toEqual(["127.0.0.1/go"])
})

test("a redirect to a host the rules ask about stops there, with the call that fetches it (asked about as its own)", async () => {
  reached.length = 0
  const result = await runFetch({}, at("127.0.0.1", "/go"), ["--allow", "fetch:127.0.0.1"])
  expect(result.envelope.error.code).toBe("PERMISSION_DENIED")
  expect(result.envelope.error.message).toContain("This call was approved for 127.0.0.1, not for localhost")
  expect(result.envelope.text).toContain(at("localhost", "/secret"))
  expect(reached).toEqual(["127.0.0.1/go"])
  // Approved for both hosts, the chain is followed.
  reached.length = 0
  const both = await runFetch({}, at("127.0.0.1", "/go"), ["--allow", "fetch:127.0.0.1", "--allow", "fetch:localhost"])
  expect(both.envelope.status).toBe("success")
  expect(both.envelope.data.final_url).toBe(at("localhost", "/secret"))
  expect(reached).toEqual(["127.0.0.1/go", "localhost/secret"])
})

test("anvil tool fetch follows a redirect the rules do not deny (the command line approves it) and refuses one they deny", async () => {
  const open = setUp({})
  const followed = await runBinary(["tool", "fetch", JSON.stringify({ url: at("127.0.0.1", "/go") })], { cwd: open.root, env: { HOME: open.home } })
  expect(JSON.parse(followed.stdout).data.final_url).toBe(at("localhost", "/secret"))
  const closed = setUp({ fetch: { localhost: "deny" } })
  reached.length = 0
  const refused = await runBinary(["tool", "fetch", JSON.stringify({ url: at("127.0.0.1", "/go") })], { cwd: closed.root, env: { HOME: closed.home } })
  expect(JSON.parse(refused.stdout).error.code).toBe("PERMISSION_DENIED")
  expect(reached).toEqual(["127.0.0.1/go"])
})

test("a host rule holds for the host written with a trailing dot, and an IPv4 rule for the address written as IPv6", async () => {
  const { root, home } = setUp({ fetch: { localhost: "deny", "127.0.0.1": "deny" } })
  reached.length = 0
  for (const url of [at("localhost.", "/secret"), at("LOCALHOST..", "/secret"), at("[::ffff:127.0.0.1]", "/secret"), at("127.1", "/secret")]) {
    const r = await runBinary(["tool", "fetch", JSON.stringify({ url })], { cwd: root, env: { HOME: home } })
    const envelope = JSON.parse(r.stdout)
    expect([url, envelope.error?.code]).toEqual([url, "PERMISSION_DENIED"])
    expect(envelope.error.message).toContain("is denied by the rule")
  }
  expect(reached).toEqual([])
})
