import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { runBinary, sandboxBinary } from "./binary.ts"

// `sandbox.allow` (and `--add-dir`) names folders outside the project the file tools may reach; `~` there is the home
// folder, and what the command sandbox hides from commands (~/.ssh, anvil's settings and trust, sandbox.deny_read)
// stays out of the file tools' reach too, while what commands may read the file tools may read. Through the binary.
setDefaultTimeout(120_000)

const binary = sandboxBinary()

const world = (sandbox: Record<string, unknown>) => {
  const home = tempDir("anvil-reach-home-")
  const root = join(home, "proj")
  for (const d of ["proj", "notes", ".ssh", ".config/anvil", ".cache/anvil", ".kube"]) mkdirSync(join(home, d), { recursive: true })
  Bun.spawnSync(["git", "init", "-q"], { cwd: root })
  writeFileSync(join(home, "notes", "n.txt"), "NOTE\n")
  writeFileSync(join(home, ".ssh", "id_rsa"), "KEY\n")
  writeFileSync(join(home, ".kube", "config"), "KUBE\n")
  const settings = join(home, ".config", "anvil", "anvil.json")
  writeFileSync(settings, JSON.stringify({ sandbox }))
  const tool = async (name: string, params: unknown) => JSON.parse((await runBinary(binary(), ["tool", name, JSON.stringify(params)], root, { HOME: home })).out)
  return { home, root, settings, tool }
}

describe("sandbox.allow: file tools and commands agree on what is reachable", () => {
  test('`"allow": ["~"]` is the home folder: reachable by both, its secrets by neither', async () => {
    const w = world({ allow: ["~"] })
    expect(existsSync(join(w.root, "~"))).toBe(false)
    expect((await w.tool("read", { path: "~/notes/n.txt" })).data.content).toContain("NOTE")
    expect((await w.tool("read", { path: join(w.home, "notes", "n.txt") })).data.content).toContain("NOTE")
    expect((await w.tool("bash", { command: `cat ${w.home}/notes/n.txt` })).data.stdout).toBe("NOTE")
    expect((await w.tool("write", { path: "~/notes/new.txt", content: "NEW" })).status).toBe("success")

    const key = await w.tool("read", { path: "~/.ssh/id_rsa" })
    expect(key.error.code).toBe("ACCESS_DENIED")
    expect(key.error.message).toContain("~/.ssh")
    expect(key.error.message).toContain("sandbox.allow_read")
    expect((await w.tool("bash", { command: `cat ${w.home}/.ssh/id_rsa 2>&1; true` })).data.stdout).not.toContain("KEY")
    // Neither written, nor named by a search or a listing there.
    expect((await w.tool("write", { path: "~/.ssh/authorized_keys", content: "x" })).error.code).toBe("ACCESS_DENIED")
    expect(existsSync(join(w.home, ".ssh", "authorized_keys"))).toBe(false)
    expect((await w.tool("glob", { pattern: "**/id_rsa", path: "~" })).data.paths).toEqual([])
    expect((await w.tool("grep", { pattern: "KEY|NOTE", path: "~", output_mode: "files_with_matches" })).data.files).toEqual([join(w.home, "notes", "n.txt")])
    expect((await w.tool("list", { path: "~/.ssh" })).error.code).toBe("ACCESS_DENIED")
  })

  test("anvil's own settings, trust and cache are not changed by a file tool, whatever sandbox.allow says", async () => {
    const w = world({ allow: ["~"] })
    const before = readFileSync(w.settings, "utf8")
    for (const path of ["~/.config/anvil/anvil.json", "~/.config/anvil/trust.json", "~/.cache/anvil/projects/x/read-masks.json"]) {
      const wrote = await w.tool("write", { path, content: "{}" })
      expect(wrote.status).toBe("error")
      expect(wrote.error.code).toBe("ACCESS_DENIED")
    }
    expect(readFileSync(w.settings, "utf8")).toBe(before)
    expect(existsSync(join(w.home, ".config", "anvil", "trust.json"))).toBe(false)
    const cache = await w.tool("write", { path: "~/.cache/anvil/x.json", content: "{}" })
    expect(cache.error.message).toContain("anvil's own settings and state")
  })

  test("sandbox.allow_read gives a secret back to both; sandbox.deny_read takes a place from both", async () => {
    const w = world({ allow: ["~"], allow_read: ["~/.kube/"], deny_read: ["~/notes/"] })
    expect((await w.tool("read", { path: "~/.kube/config" })).data.content).toContain("KUBE")
    expect((await w.tool("bash", { command: `cat ${w.home}/.kube/config` })).data.stdout).toBe("KUBE")
    const note = await w.tool("read", { path: "~/notes/n.txt" })
    expect(note.error.code).toBe("ACCESS_DENIED")
    expect(note.error.message).toContain("sandbox.deny_read")
    expect((await w.tool("bash", { command: `cat ${w.home}/notes/n.txt 2>&1; true` })).data.stdout).not.toContain("NOTE")
  })

  test("without sandbox.allow the home folder stays out of the file tools' reach (commands read it, as before)", async () => {
    const w = world({})
    expect((await w.tool("read", { path: "~/notes/n.txt" })).error.code).toBe("ACCESS_DENIED")
  })
})
