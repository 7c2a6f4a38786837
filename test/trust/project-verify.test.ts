import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { tempDir } from "../support/harness.ts"
import { pathWithout, runBinary, sandboxBinary } from "../sandbox/binary.ts"

// The project's own `verify` command through the compiled binary: confined it runs without asking; where it would run
// unconfined (sandbox off, or bubblewrap missing) it needs the user's trust, and a run without a terminal skips it.
setDefaultTimeout(60_000)

const binary = sandboxBinary()
const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

const VERIFY = "echo ran >> verify.log"

/** A project whose anvil.json sets `verify` (and the user's own anvil.json, when given), with HOME outside it. */
const setup = (project: Record<string, unknown>, user?: Record<string, unknown>) => {
  const root = tempDir("anvil-verify-proj-")
  const home = tempDir("anvil-verify-home-")
  writeFileSync(join(root, "anvil.json"), JSON.stringify(project))
  if (user) {
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify(user))
  }
  return { root, home }
}

/** One `anvil run` in which the model writes a code file and finishes: the turn that triggers auto-verification. */
const run = async (root: string, home: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const server = fakeOpenAI([{ tool_calls: [{ name: "write", arguments: { path: `src/f${servers.length}.ts`, content: "export {}\n" } }] }, { text: "Done." }])
  servers.push(server)
  const r = await runBinary(binary(), ["run", "--yes", "--format", "stream-json", ...args, "write it"], root, {
    HOME: home,
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: "sk-test",
    ANVIL_MODEL: "openai/gpt-test",
    ...env,
  })
  const events = r.out.split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))
  const log = join(root, "verify.log")
  const ran = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0
  rmSync(log, { force: true })
  return {
    code: r.code,
    err: r.err,
    ran,
    verifies: events.filter((e) => e.type === "system" && e.subtype === "verify"),
    warnings: events.filter((e) => e.type === "system" && e.subtype === "warning").map((e) => String(e.message)),
    result: events.at(-1),
  }
}

describe("the project's verify command", () => {
  test("confined, it runs without trust; with the sandbox off it is skipped with a notice until trusted; a change asks again", async () => {
    const { root, home } = setup({ verify: VERIFY })
    const confined = await run(root, home, [])
    expect(confined.ran).toBe(1)
    expect(confined.verifies).toMatchObject([{ command: VERIFY, passed: true }])
    expect(confined.warnings).toEqual([])

    const off = await run(root, home, ["--sandbox", "off"])
    expect(off.code).toBe(0)
    expect(off.ran).toBe(0)
    expect(off.verifies).toEqual([])
    expect(off.result).toMatchObject({ is_error: false, stats: { verifications: 0 } })
    expect(off.warnings).toHaveLength(1)
    expect(off.warnings[0]).toContain(`the project's anvil.json (${join(root, "anvil.json")}) sets verify: "${VERIFY}", which would run outside the command sandbox (the command sandbox is off)`)
    expect(off.warnings[0]).toContain("so auto-verification was skipped")
    expect(off.warnings[0]).toContain("'anvil config trust verify'")
    // In text format the same notice is a stderr line.
    const plain = fakeOpenAI([{ text: "hi" }])
    servers.push(plain)
    const text = await runBinary(binary(), ["run", "--yes", "--sandbox", "off", "hello"], root, { HOME: home, OPENAI_BASE_URL: plain.url, OPENAI_API_KEY: "k", ANVIL_MODEL: "openai/gpt-test" })
    expect(text.err).toContain("anvil: warning: the project's anvil.json")
    expect(text.err).toContain("auto-verification was skipped")

    const trusted = await runBinary(binary(), ["config", "trust", "verify"], root, { HOME: home })
    expect(trusted.out).toContain("Trusted for this project: verify")
    const after = await run(root, home, ["--sandbox", "off"])
    expect(after.ran).toBe(1)
    expect(after.warnings).toEqual([])

    writeFileSync(join(root, "anvil.json"), JSON.stringify({ verify: `${VERIFY}; true` }))
    const changed = await run(root, home, ["--sandbox", "off"])
    expect(changed.ran).toBe(0)
    expect(changed.warnings[0]).toContain("it changed since you trusted it")
  })

  test("where bubblewrap cannot run, the project's verify is skipped too; the user's own verify and --verify always run", async () => {
    const path = pathWithout(["sh", "echo"])
    const { root, home } = setup({ verify: VERIFY })
    const missing = await run(root, home, [], { PATH: path })
    expect(missing.ran).toBe(0)
    expect(missing.warnings.find((w) => w.includes("verify"))).toContain("the command sandbox cannot run here: bubblewrap (bwrap) is not on PATH")

    const flag = await run(root, home, ["--verify", VERIFY], { PATH: path })
    expect(flag.ran).toBe(1)
    expect(flag.warnings.some((w) => w.includes("verify"))).toBe(false)

    const own = setup({ verify: VERIFY }, { verify: VERIFY })
    const same = await run(own.root, own.home, ["--sandbox", "off"])
    expect(same.ran).toBe(1)
    const userOnly = setup({}, { verify: VERIFY })
    const mine = await run(userOnly.root, userOnly.home, ["--sandbox", "off"])
    expect(mine.ran).toBe(1)
    expect(mine.verifies).toMatchObject([{ passed: true }])
  })
})
