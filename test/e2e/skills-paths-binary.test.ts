import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { project, tempDir } from "../support/harness.ts"
import { openaiRuns } from "../support/openai-run.ts"

setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

const skill = (dir: string, name: string, description: string) => {
  mkdirSync(join(dir, name), { recursive: true })
  writeFileSync(join(dir, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`)
}

describe("skills.paths of the user and the project", () => {
  test("the project's list adds to yours: your folders stay searched, what only the project names counts as the project's", async () => {
    const home = tempDir("anvil-home-")
    const mine = tempDir("anvil-mine-")
    skill(mine, "mine", "Mine.")
    const theirs = tempDir("anvil-theirs-")
    skill(theirs, "theirs", "Theirs.")
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ skills: { paths: [mine] } }))
    const root = project({ "anvil.json": JSON.stringify({ skills: { paths: [theirs, "kept"] } }) }, { marker: false })
    skill(join(root, "kept"), "inside", "Inside.")
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const out = await runBinary(["skills", "--json"], { cwd: root, env: { HOME: home } })
    const listed = JSON.parse(out.stdout).skills.map((s: { name: string; source: string }) => [s.name, s.source])
    expect(listed).toEqual([
      ["create-skill", "builtin"],
      ["inside", "project"],
      ["mine", "user"],
      ["theirs", "project"],
    ])
    // Without a list of the user's, the project's is taken as it is.
    const alone = await runBinary(["skills", "--json"], { cwd: root, env: { HOME: tempDir("anvil-home-") } })
    expect(JSON.parse(alone.stdout).skills.map((s: { name: string }) => s.name)).toEqual(["create-skill", "inside", "theirs"])
  })
})

describe("skills settings that name nothing usable", () => {
  const openai = openaiRuns()

  test("a skills.paths file and a skills.only name no skill has: said plainly with the next step, once per run, the rest goes on", async () => {
    const home = tempDir("anvil-home-")
    const root = project({ "notes.md": "not a folder\n" }, { marker: false })
    skill(join(root, "sk"), "one", "One.")
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ skills: { paths: ["notes.md", "sk/one/SKILL.md", "sk"], only: ["one", "nope", "kit:nope2"] } }))
    Bun.spawnSync(["git", "init", "-q"], { cwd: root })
    const listed = await runBinary(["skills", "--json"], { cwd: root, env: { HOME: home } })
    expect(listed.code).toBe(0)
    const out = JSON.parse(listed.stdout)
    expect(out.skills.map((s: { name: string }) => s.name)).toEqual(["one"])
    expect(out.problems).toEqual([
      `skills.paths: ${join(root, "notes.md")} is a file, not a folder (not_a_folder): name the folder that holds skills (each skill a folder with a SKILL.md), or one skill's own folder`,
      `skills.paths: ${join(root, "sk/one/SKILL.md")} is a file, not a folder (not_a_folder): name the skill's folder (${join(root, "sk/one")}) instead`,
      "skills.only: 'nope', 'kit:nope2' name no skill (unknown_skill), so they keep nothing; known skills: create-skill, one. Fix the names in anvil.json, or run 'anvil skills' to see where each is found",
    ])
    expect(listed.stdout).not.toContain("BadResource")
    // A run says each once on stderr as it starts, and goes on.
    const { env } = openai([{ text: "Done." }])
    const run = await runBinary(["run", "hello"], { cwd: root, env: { HOME: home, ...env } })
    expect(run.code).toBe(0)
    expect(run.stdout.trim()).toBe("Done.")
    const lines = run.stderr.split("\n")
    expect(lines.filter((l) => l.includes("(unknown_skill)"))).toEqual([`anvil: ${out.problems[2]}`])
    expect(lines.filter((l) => l.includes("(not_a_folder)"))).toHaveLength(2)
  })
})
