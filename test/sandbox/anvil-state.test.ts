import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { runBinary, sandboxBinary } from "./binary.ts"

// anvil's own folders (its cache, its settings) stay out of a confined command's reach whatever sandbox.writable
// says: a command could otherwise plant another project's read-rule walk or nested-git record, the sandbox probe's
// memory, your anvil.json or trust.json. Through the compiled binary.
setDefaultTimeout(60_000)

const binary = sandboxBinary()

/** A git project, a HOME and a settings folder of its own, with `sandbox` in the user's own anvil.json (no trust needed). */
const world = (sandbox: Record<string, unknown>, home?: string) => {
  const base = tempDir("anvil-state-")
  const root = join(base, "project")
  mkdirSync(root)
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  const env = { HOME: home ?? join(base, "home"), XDG_CONFIG_HOME: join(base, "config") }
  mkdirSync(join(env.XDG_CONFIG_HOME, "anvil"), { recursive: true })
  mkdirSync(join(env.HOME, ".cache"), { recursive: true })
  mkdirSync(join(env.HOME, ".config"), { recursive: true })
  writeFileSync(join(env.XDG_CONFIG_HOME, "anvil", "anvil.json"), JSON.stringify({ sandbox }))
  return { root, env, home: env.HOME }
}

const bash = async (w: ReturnType<typeof world>, command: string) => {
  const r = await runBinary(binary(), ["tool", "bash", JSON.stringify({ command })], w.root, w.env)
  return JSON.parse(r.out) as { data: { stdout: string; stderr: string; sandbox: { refused: Array<{ kind: string; subject: string; message: string }> } } }
}

describe("anvil's state folders in a confined command", () => {
  test('"writable": ["~/.cache"]: nothing under ~/.cache/anvil can be made, changed or moved; the rest of ~/.cache is writable', async () => {
    const w = world({ writable: ["~/.cache"] })
    // A first command makes this project's records in the cache.
    await bash(w, "true")
    const cache = join(w.home, ".cache", "anvil")
    const before = readdirSync(join(cache, "projects"))
    const probe = readFileSync(join(cache, "sandbox-probe"), "utf8")
    const r = await bash(
      w,
      "mkdir -p ~/.cache/anvil/projects/0123456789abcdef; echo '{}' > ~/.cache/anvil/projects/0123456789abcdef/read-masks.json; " +
        "echo forged > ~/.cache/anvil/sandbox-probe; mv ~/.cache/anvil ~/.cache/moved; echo fine > ~/.cache/other.txt",
    )
    expect(readdirSync(join(cache, "projects"))).toEqual(before)
    expect(readFileSync(join(cache, "sandbox-probe"), "utf8")).toBe(probe)
    expect(existsSync(join(w.home, ".cache", "moved"))).toBe(false)
    expect(readFileSync(join(w.home, ".cache", "other.txt"), "utf8")).toBe("fine\n")
    expect(r.data.stderr).toContain("Read-only file system")
    const refusal = r.data.sandbox.refused.find((x) => x.kind === "protected")
    expect(refusal?.message).toContain("anvil's own state")
    expect(refusal?.message).toContain("whatever sandbox.writable says")
  })

  test("a writable folder inside the state (~/.cache/anvil/projects) is read-only all the same", async () => {
    const w = world({ writable: ["~/.cache/anvil/projects"] })
    await bash(w, "true")
    const projects = join(w.home, ".cache", "anvil", "projects")
    const before = readdirSync(projects)
    const r = await bash(w, "mkdir ~/.cache/anvil/projects/planted; touch ~/.cache/anvil/projects/*/read-masks.json")
    expect(readdirSync(projects)).toEqual(before)
    expect(r.data.stderr).toContain("Read-only file system")
  })

  test("a settings folder that does not exist yet (~/.config/anvil) cannot be made, and nothing is left in its place", async () => {
    const w = world({ writable: ["~/.config"] })
    const r = await bash(w, "mkdir -p ~/.config/anvil; echo '{\"sandbox\":{\"mode\":\"off\"}}' > ~/.config/anvil/anvil.json; ls -A ~/.config/anvil; echo ok > ~/.config/tool.conf")
    expect(r.data.stderr).toContain("Read-only file system")
    expect(readdirSync(join(w.home, ".config"))).toEqual(["tool.conf"])
  })

  test("HOME at the project: its .cache/anvil is read-only to commands too, the rest of the project writable", async () => {
    const base = tempDir("anvil-state-home-")
    const w = world({}, base)
    // The project is HOME itself here.
    const home = { ...w, root: base }
    Bun.spawnSync(["git", "init", "-q"], { cwd: base })
    await bash(home, "true")
    const cache = join(base, ".cache", "anvil")
    const before = readdirSync(cache).sort()
    const r = await bash(home, "touch .cache/anvil/planted; echo ok > made.txt")
    expect(readdirSync(cache).sort()).toEqual(before)
    expect(readFileSync(join(base, "made.txt"), "utf8")).toBe("ok\n")
    expect(r.data.stderr).toContain("Read-only file system")
  })
})
