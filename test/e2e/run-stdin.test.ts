import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { runProcess } from "../support/anvil-cli.ts"
import { anvilBinary } from "../support/binary.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project } from "../support/harness.ts"

// `anvil run` without a prompt argument: standard input must bring one, and never hangs the run.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))
beforeAll(() => void anvilBinary(), 120_000)

/** Runs `script` under /bin/sh in `root` with the binary as $ANVIL and the fake model's environment. */
const sh = (root: string, script: string, env: Record<string, string> = {}) =>
  runProcess(["/bin/sh", "-c", script], { cwd: root, env: { ANVIL: anvilBinary(), HOME: root, NO_COLOR: "1", ...env } })

/** Runs the binary with a standard input held open and never written to, and ANVIL_STDIN_WAIT at half a second. */
const withSilentStdin = async (root: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const proc = Bun.spawn([anvilBinary(), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, NO_COLOR: "1", ANVIL_STDIN_WAIT: "0.5", ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  proc.stdin.end()
  return { stdout, stderr, code }
}

describe("anvil run's prompt from standard input", () => {
  test("a pipe left open and silent fails after the wait with exit 2; empty or closed input fails at once", async () => {
    const root = project({})
    const server = fakeOpenAI([{ text: "never asked" }])
    servers.push(server)
    const env = { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }

    // A pipe held open and never written to; the run must not outlive ANVIL_STDIN_WAIT by much.
    const started = performance.now()
    const silent = await withSilentStdin(root, ["run", "-f", "json"], env)
    expect(performance.now() - started).toBeLessThan(20_000)
    expect(silent.code).toBe(2)
    expect(silent.stderr).toContain("no prompt: nothing arrived on standard input within 0.5 s")
    expect(silent.stderr).toContain("ANVIL_STDIN_WAIT")
    expect(JSON.parse(silent.stdout)).toMatchObject({ type: "result", is_error: true, reason: "usage", exit_code: 2 })

    for (const redirect of ["</dev/null", "<&-", "<<< '   '"]) {
      const r = await sh(root, `exec bash -c '"$ANVIL" run ${redirect.replace(/'/g, "'\\''")}'`, env)
      expect({ redirect, code: r.code }).toEqual({ redirect, code: 2 })
      expect(r.stderr).toMatch(/no prompt: standard input (is empty or closed|was empty)\. Give the prompt as an argument/)
    }
    expect(server.requests.length).toBe(0)

    // A prompt that starts late (within the wait) is read to its end.
    const late = await sh(root, '(sleep 0.3; printf "say "; sleep 0.3; echo hi) | "$ANVIL" run', env)
    expect({ code: late.code, out: late.stdout }).toEqual({ code: 0, out: "never asked\n" })
    expect(server.requests[0]!.body.messages[1].content).toBe("say hi")
  })

  test("anvil tool NAME - with a silent pipe is a usage error after the wait; piped parameters still work", async () => {
    const root = project({ "a.txt": "alpha\n" })
    const silent = await withSilentStdin(root, ["tool", "read", "-"])
    expect(silent.code).toBe(2)
    expect(silent.stderr).toContain("anvil tool read: nothing arrived on standard input within 0.5 s")
    const piped = await sh(root, `printf '{"path": "a.txt"}' | "$ANVIL" tool read -`)
    expect(piped.code).toBe(0)
    expect(JSON.parse(piped.stdout).data.content).toContain("alpha")
  })
})
