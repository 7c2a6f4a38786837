import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { EmbeddedAssets } from "../../src/embedded/assets.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { loadBuiltinSkills } from "../../src/skills/builtin-skills.ts"
import { tempDir } from "../support/harness.ts"

const repoSkills = join(import.meta.dir, "..", "..", "skills")
const load = (assets?: EmbeddedAssets) => Effect.runPromise(loadBuiltinSkills(assets).pipe(Effect.provide(PlatformLive)))

describe("loadBuiltinSkills", () => {
  test("in a source checkout reads every skills/<name>/SKILL.md of the repository", async () => {
    const skills = await load()
    const names = readdirSync(repoSkills).sort()
    expect(skills.map((s) => s.name)).toEqual(names)
    const create = skills.find((s) => s.name === "create-skill")!
    expect(create.path).toBe(join(repoSkills, "create-skill", "SKILL.md"))
    expect(create.text).toBe(readFileSync(join(repoSkills, "create-skill", "SKILL.md"), "utf8"))
  })

  test("in the executable reads the embedded files the manifest names, sorted by name", async () => {
    const dir = tempDir("anvil-bunfs-")
    writeFileSync(join(dir, "SKILL-b1.md"), "---\nname: zeta\n---\nZ")
    writeFileSync(join(dir, "SKILL-a2.md"), "---\nname: alpha\n---\nA")
    const skills = await load({
      compiled: true,
      skills: { zeta: join(dir, "SKILL-b1.md"), alpha: join(dir, "SKILL-a2.md") },
    })
    expect(skills).toEqual([
      { name: "alpha", path: join(dir, "SKILL-a2.md"), text: "---\nname: alpha\n---\nA" },
      { name: "zeta", path: join(dir, "SKILL-b1.md"), text: "---\nname: zeta\n---\nZ" },
    ])
  })

  test("a skill whose file cannot be read is left out instead of failing", async () => {
    const dir = tempDir("anvil-bunfs-")
    writeFileSync(join(dir, "ok.md"), "ok")
    const skills = await load({ compiled: true, skills: { ok: join(dir, "ok.md"), gone: join(dir, "missing.md") } })
    expect(skills.map((s) => s.name)).toEqual(["ok"])
  })
})

/** The front matter's top-level `key: value` lines (enough for the Agent Skills fields checked here). */
const frontMatter = (text: string): Record<string, string> | undefined => {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text)
  if (!m) return undefined
  const fields: Record<string, string> = {}
  for (const line of m[1]!.split("\n")) {
    const kv = /^([a-z][a-z-]*):\s*(.*)$/.exec(line)
    if (kv) fields[kv[1]!] = kv[2]!
  }
  return fields
}

describe("the built-in skills follow the Agent Skills format", () => {
  for (const name of readdirSync(repoSkills)) {
    test(name, () => {
      const text = readFileSync(join(repoSkills, name, "SKILL.md"), "utf8")
      const fields = frontMatter(text)
      expect(fields).toBeDefined()
      expect(fields!.name).toBe(name)
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(name.length).toBeLessThanOrEqual(64)
      expect(fields!.description!.length).toBeGreaterThan(20)
      expect(fields!.description!.length).toBeLessThanOrEqual(1024)
      // An unquoted description with ": " would not parse as one YAML string.
      expect(fields!.description).not.toContain(": ")
      expect(text.split("\n").length).toBeLessThan(500)
    })
  }
})

test("create-skill is built in", () => {
  expect(readdirSync(repoSkills)).toContain("create-skill")
})
