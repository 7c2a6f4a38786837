import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { project, tempDir } from "../support/harness.ts"

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
