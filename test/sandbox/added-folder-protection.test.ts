import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { runBinary, sandboxBinary } from "./binary.ts"

// Every folder a confined command may write (sandbox.writable, --add-dir: the same list) keeps the project's built-in
// protected paths (git hooks and config, .claude/, .anvil/, anvil.json, .mcp.json…), and Claude Code's config folder
// its settings, hooks, plugins, agents, commands and skills: written, they run code outside the sandbox later.
// Through the compiled binary, with a HOME of the test's own.
setDefaultTimeout(60_000)

const binary = sandboxBinary()

interface Refusal {
  readonly kind: string
  readonly subject: string
  readonly message: string
}

/** A git project, another git repository beside it, a HOME with ~/.claude and ~/.config/anvil, `sandbox` in the user's anvil.json. */
const world = (sandbox: Record<string, unknown>, extraEnv: Record<string, string> = {}) => {
  const base = tempDir("added-folder-")
  const root = join(base, "project")
  const other = join(base, "other")
  const home = join(base, "home")
  for (const d of [root, other]) {
    mkdirSync(d)
    Bun.spawnSync(["git", "init", "-q"], { cwd: d })
  }
  mkdirSync(join(home, ".claude"), { recursive: true })
  writeFileSync(join(home, ".claude", "settings.json"), "{}\n")
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ sandbox }))
  return { root, other, home, env: { HOME: home, ...extraEnv } }
}

const bash = async (w: ReturnType<typeof world>, command: string) => {
  const r = await runBinary(binary(), ["tool", "bash", JSON.stringify({ command })], w.root, w.env)
  return JSON.parse(r.out) as { data: { stdout: string; stderr: string; sandbox: { refused: Array<Refusal> } } }
}

const refusalFor = (refused: ReadonlyArray<Refusal>, part: string) => refused.find((r) => r.subject.includes(part))

describe("protected paths in every writable folder", () => {
  test('"writable": ["../other"]: its git hooks and config, .claude/, .anvil/, anvil.json and .mcp.json stay read-only; an ordinary file is written', async () => {
    const w = world({ writable: ["../other"] })
    const config = readFileSync(join(w.other, ".git", "config"), "utf8")
    const guarded = [".git/hooks/pre-commit", ".claude/settings.json", ".anvil/x", "anvil.json", ".mcp.json"]
    for (const g of guarded) {
      const r = await bash(w, `mkdir -p $(dirname ../other/${g}) ; echo planted > ../other/${g}`)
      expect(existsSync(join(w.other, g)) && readFileSync(join(w.other, g), "utf8").includes("planted")).toBe(false)
      const refusal = refusalFor(r.data.sandbox.refused, `other/${g}`)
      expect({ g, kind: refusal?.kind }).toEqual({ g, kind: "protected" })
      expect(refusal?.message).toContain("every folder sandbox.writable or --add-dir opens")
      expect(refusal?.message).not.toContain("Add the folder to sandbox.writable")
    }
    await bash(w, "git -C ../other config core.hooksPath /tmp/x")
    expect(readFileSync(join(w.other, ".git", "config"), "utf8")).toBe(config)
    const ok = await bash(w, "echo fine > ../other/notes.txt")
    expect(ok.data.stderr).toBe("")
    expect(readFileSync(join(w.other, "notes.txt"), "utf8")).toBe("fine\n")
    // Stand-ins for the missing ones are gone after the command.
    for (const g of ["anvil.json", ".mcp.json", ".anvil", ".claude"]) expect(existsSync(join(w.other, g))).toBe(false)
  })

  test('"writable": ["~"]: ~/.claude/settings.json, its hooks, plugins, agents, commands and skills stay read-only, with Claude Code\'s reason', async () => {
    const w = world({ writable: ["~"] })
    for (const place of ["settings.json", "settings.local.json", "hooks/h", "plugins/p", "agents/a.md", "commands/c.md", "skills/s"]) {
      const r = await bash(w, `mkdir -p $(dirname ~/.claude/${place}) ; echo planted > ~/.claude/${place}`)
      expect(existsSync(join(w.home, ".claude", place)) && readFileSync(join(w.home, ".claude", place), "utf8").includes("planted")).toBe(false)
      const refusal = r.data.sandbox.refused.find((x) => x.kind === "protected")
      expect({ place, message: refusal?.message.includes("Claude Code's config") }).toEqual({ place, message: true })
      expect(refusal?.message).toContain("sandbox: false")
    }
    expect(readFileSync(join(w.home, ".claude", "settings.json"), "utf8")).toBe("{}\n")
    const ok = await bash(w, "echo fine > ~/notes.txt")
    expect(ok.data.stderr).toBe("")
    expect(readFileSync(join(w.home, "notes.txt"), "utf8")).toBe("fine\n")
  })

  test("CLAUDE_CONFIG_DIR made writable: its settings.json stays read-only, the rest of it writable", async () => {
    const base = tempDir("claude-config-")
    mkdirSync(join(base, "cc"))
    writeFileSync(join(base, "cc", "settings.json"), "{}\n")
    const w = world({ writable: [join(base, "cc")] }, { CLAUDE_CONFIG_DIR: join(base, "cc") })
    const r = await bash(w, `echo planted > ${join(base, "cc", "settings.json")}; echo fine > ${join(base, "cc", "history.jsonl")}`)
    expect(readFileSync(join(base, "cc", "settings.json"), "utf8")).toBe("{}\n")
    expect(readFileSync(join(base, "cc", "history.jsonl"), "utf8")).toBe("fine\n")
    expect(r.data.sandbox.refused.find((x) => x.kind === "protected")?.message).toContain("Claude Code's config")
  })

  test("the file tools keep the same places in a folder they may reach (sandbox.allow, --add-dir) and in ~/.claude", async () => {
    const w = world({ allow: ["../other", "../home"] })
    const write = async (path: string) => {
      const r = await runBinary(binary(), ["tool", "write", JSON.stringify({ path, content: "{}" })], w.root, w.env)
      return JSON.parse(r.out) as { status: string; text: string }
    }
    for (const place of ["../other/.mcp.json", "../other/anvil.json", "../other/.claude/settings.json", `${w.home}/.claude/settings.json`, `${w.home}/.claude/hooks/h.sh`]) {
      const r = await write(place)
      expect({ place, status: r.status }).toEqual({ place, status: "error" })
      expect(r.text).toContain("Code: ACCESS_DENIED")
      expect(r.text).toContain("is a protected path")
      expect(r.text).toContain("ask the user")
    }
    expect(existsSync(join(w.other, ".mcp.json"))).toBe(false)
    expect(readFileSync(join(w.home, ".claude", "settings.json"), "utf8")).toBe("{}\n")
    expect((await write("../other/notes.txt")).status).toBe("success")
    expect(readFileSync(join(w.other, "notes.txt"), "utf8")).toBe("{}")
  })

  test('"writable": ["~/.config"]: ~/.config/anvil/trust.json is refused as anvil\'s own state, not as a folder to add', async () => {
    const w = world({ writable: ["~/.config"] })
    const r = await bash(w, "echo '{}' > ~/.config/anvil/trust.json; echo ok > ~/.config/tool.conf")
    expect(existsSync(join(w.home, ".config", "anvil", "trust.json"))).toBe(false)
    expect(readFileSync(join(w.home, ".config", "tool.conf"), "utf8")).toBe("ok\n")
    const refusal = r.data.sandbox.refused.find((x) => x.subject.endsWith("trust.json"))
    expect(refusal?.kind).toBe("protected")
    expect(refusal?.message).toContain("anvil's own state")
    expect(refusal?.message).not.toContain("Add the folder to sandbox.writable")
  })
})
