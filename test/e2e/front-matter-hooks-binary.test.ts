import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import type { FakeTurn } from "../support/fake-model.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

// Claude Code's "Hooks in skills and agents": a skill's front-matter hooks are in force for the rest of the session
// once it is invoked (by a person's /name or the model's load); an agent's only while it runs, around its own calls.
// Those of a file that came with the repository need trust, as the project's other hooks do.

/** Front matter whose PreToolUse hook logs each Bash call it sees to hook.log and refuses it (exit 2). */
const guarding = (extra = "") =>
  "hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n" +
  `          command: 'echo seen >> "$CLAUDE_PROJECT_DIR/hook.log"; echo "guarded: no bash" >&2; exit 2'\n${extra}`
const skillFile = (hooks: string) => `---\ndescription: Guards the shell.\n${hooks}---\nWork carefully.\n`

const bash = (command: string): FakeTurn => ({ tool_calls: [{ name: "bash", arguments: { command } }] })
const sent = (server: ReturnType<typeof fakeOpenAI>, i: number) => JSON.stringify(server.requests[i]!.body.messages)
const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").length : 0)

const run = async (root: string, home: string, prompt: string, script: ReadonlyArray<FakeTurn>, flags: ReadonlyArray<string> = []) => {
  const server = fakeOpenAI(script)
  try {
    const out = await runBinary(["run", "--model", "openai/gpt-test", ...flags, prompt], {
      cwd: root,
      env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
    })
    return { out, server }
  } finally {
    server.stop()
  }
}

describe("hooks in a skill's or an agent's front matter, through the binary", () => {
  test("a skill's hooks are in force once a person runs /skill, for the rest of that session only", async () => {
    const home = tempDir("anvil-home-")
    writeTree(home, { ".claude/skills/guard/SKILL.md": skillFile(guarding()) })
    const root = project()
    const guarded = await run(root, home, "/guard", [bash("echo hi > first.txt"), { text: "done" }])
    // 4: the turn had a call refused (exit-codes.ts `denied`).
    expect(guarded.out.code).toBe(4)
    expect(sent(guarded.server, 1)).toContain("Blocked by skill 'guard': guarded: no bash")
    expect(existsSync(join(root, "first.txt"))).toBe(false)
    expect(lines(join(root, "hook.log"))).toBe(1)
    // Another session that does not invoke it: the hook is not in force.
    await run(root, home, "hello", [bash("echo hi > second.txt"), { text: "done" }])
    expect(readFileSync(join(root, "second.txt"), "utf8")).toBe("hi\n")
    expect(lines(join(root, "hook.log"))).toBe(1)
  })

  test("the model's load of the skill puts its hooks in force from the next call; once: true runs a hook until it first succeeds", async () => {
    const home = tempDir("anvil-home-")
    const counting = "hooks:\n  PostToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: 'echo once >> \"$CLAUDE_PROJECT_DIR/once.log\"'\n          once: true\n          timeout: 30\n"
    writeTree(home, { ".claude/skills/guard/SKILL.md": skillFile(guarding()), ".claude/skills/counter/SKILL.md": skillFile(counting) })
    const root = project()
    const script = [bash("echo a > before.txt"), { tool_calls: [{ name: "skill", arguments: { name: "guard" } }] }, bash("echo b > after.txt"), { text: "done" }]
    const { out, server } = await run(root, home, "work", script)
    expect(out.code).toBe(4)
    expect(existsSync(join(root, "before.txt"))).toBe(true)
    expect(sent(server, 3)).toContain("Blocked by skill 'guard'")
    expect(existsSync(join(root, "after.txt"))).toBe(false)
    const twice = await run(root, home, "/counter", [bash("echo 1"), bash("echo 2"), { text: "done" }])
    expect(twice.out.code).toBe(0)
    expect(lines(join(root, "once.log"))).toBe(1)
    // `timeout: 30` is a number of seconds, as Claude Code reads the YAML (no warning that it is not).
    expect(twice.out.stderr).not.toContain("timeout")
  })

  test("a project skill's hooks run only once trusted (--trust-plugins here), and the person is told why they did not", async () => {
    const home = tempDir("anvil-home-")
    const root = project({ ".claude/skills/guard/SKILL.md": skillFile(guarding()) })
    const untrusted = await run(root, home, "/guard", [bash("echo hi > free.txt"), { text: "done" }])
    expect(readFileSync(join(root, "free.txt"), "utf8")).toBe("hi\n")
    expect(untrusted.out.stderr).toContain("the project's skill 'guard' (")
    expect(untrusted.out.stderr).toContain("declares hooks in its front matter, not trusted yet, so they were not run; review them, then run 'anvil plugins trust skill:guard'")
    const trusted = await run(root, home, "/guard", [bash("echo hi > held.txt"), { text: "done" }], ["--trust-plugins"])
    expect(sent(trusted.server, 1)).toContain("Blocked by skill 'guard': guarded: no bash")
    expect(existsSync(join(root, "held.txt"))).toBe(false)
    // Trusted for good by name; a change to the skill's folder asks again.
    const given = await runBinary(["plugins", "trust", "skill:guard"], { cwd: root, env: { HOME: home } })
    expect(given.stdout).toContain("trusted skill:guard (.claude/skills/guard)")
    const kept = await run(root, home, "/guard", [bash("echo hi > kept.txt"), { text: "done" }])
    expect(sent(kept.server, 1)).toContain("Blocked by skill 'guard'")
    writeTree(root, { ".claude/skills/guard/SKILL.md": skillFile(guarding("          timeout: 5\n")) })
    const changed = await run(root, home, "/guard", [bash("echo hi > changed.txt"), { text: "done" }])
    expect(changed.out.stderr).toContain("changed since they were trusted")
    expect(existsSync(join(root, "changed.txt"))).toBe(true)
    const unknown = await runBinary(["plugins", "trust", "skill:nobody"], { cwd: root, env: { HOME: home } })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("no project skill or agent with hooks named 'skill:nobody' (with hooks: skill:guard)")
  })

  test("hooks read at the session's start run only if the trusted file still holds them (trusted content put back meanwhile)", async () => {
    const home = tempDir("anvil-home-")
    const logging = (word: string) =>
      `hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: 'echo ${word} >> "$CLAUDE_PROJECT_DIR/${word}.log"'\n`
    const benign = skillFile(logging("benign"))
    const root = project({ ".claude/skills/guard/SKILL.md": benign })
    expect((await runBinary(["plugins", "trust", "skill:guard"], { cwd: root, env: { HOME: home } })).code).toBe(0)
    // The session starts with other hooks in the file (a branch under review); the trusted file is back before the load.
    writeTree(root, { ".claude/skills/guard/SKILL.md": skillFile(logging("other")) })
    const server = fakeOpenAI([{ delay_ms: 1500, tool_calls: [{ name: "skill", arguments: { name: "guard" } }] }, bash("echo hi"), { text: "done" }])
    try {
      const running = runBinary(["run", "--model", "openai/gpt-test", "work"], {
        cwd: root,
        env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" },
      })
      while (server.requests.length === 0) await Bun.sleep(20)
      writeTree(root, { ".claude/skills/guard/SKILL.md": benign })
      const out = await running
      expect(out.code).toBe(0)
      expect(existsSync(join(root, "other.log"))).toBe(false)
      expect(out.stderr).toContain("the project's skill 'guard' (")
      expect(out.stderr).toContain("has hooks in its front matter other than those this session read at its start, so they were not run")
    } finally {
      server.stop()
    }
  })

  test("an agent's hooks guard its own calls while it runs, not the calling agent's", async () => {
    const home = tempDir("anvil-home-")
    writeTree(home, { ".claude/agents/checker.md": `---\nname: checker\ndescription: Checks things.\n${guarding()}---\nYou check.\n` })
    const root = project()
    const script = [
      { tool_calls: [{ name: "task", arguments: { agent: "checker", objective: "check" } }] },
      bash("echo sub > sub.txt"),
      { text: "checked" },
      bash("echo main > main.txt"),
      { text: "done" },
    ]
    const { out, server } = await run(root, home, "go", script)
    expect(out.code).toBe(0)
    expect(sent(server, 2)).toContain("Blocked by agent 'checker': guarded: no bash")
    expect(existsSync(join(root, "sub.txt"))).toBe(false)
    expect(readFileSync(join(root, "main.txt"), "utf8")).toBe("main\n")
    expect(lines(join(root, "hook.log"))).toBe(1)
  })

  test("an agent's hooks see its calls of an MCP server's tools too (a guard on mcp__.*)", async () => {
    const home = tempDir("anvil-home-")
    const mcpGuard =
      "hooks:\n  PreToolUse:\n    - matcher: mcp__.*\n      hooks:\n        - type: command\n" +
      "          command: 'echo \"no mcp here\" >&2; exit 2'\n"
    const tiny = { command: process.execPath, args: [join(import.meta.dir, "..", "mcp", "tiny-server.ts")], permission: "allow" }
    writeTree(home, {
      ".claude/agents/checker.md": `---\nname: checker\ndescription: Checks things.\n${mcpGuard}---\nYou check.\n`,
      ".config/anvil/anvil.json": JSON.stringify({ mcpServers: { tiny } }),
    })
    const root = project()
    const echo = (message: string): FakeTurn => ({ tool_calls: [{ name: "mcp__tiny__echo", arguments: { message } }] })
    const script = [{ tool_calls: [{ name: "task", arguments: { agent: "checker", objective: "check" } }] }, echo("sub"), { text: "checked" }, echo("main"), { text: "done" }]
    const { out, server } = await run(root, home, "go", script)
    expect(out.code).toBe(0)
    expect(sent(server, 2)).toContain("Blocked by agent 'checker': no mcp here")
    // The calling agent's own call is not the subagent's business.
    expect(sent(server, 4)).toContain("echo: main")
  })
})
