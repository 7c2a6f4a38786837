import { describe, expect, test } from "bun:test"
import { BUILT_IN_PATH, shownSkillPath } from "../../src/skills/builtin-skills.ts"
import { runBinary } from "../support/binary.ts"
import { project } from "../support/harness.ts"

describe("a built-in skill is shown as (built in), never by its path inside the executable", () => {
  test("a path inside the executable is (built in); any other path is displayed as given", () => {
    expect(shownSkillPath("/$bunfs/root/SKILL-vvqke3a2.md")).toBe(BUILT_IN_PATH)
    expect(shownSkillPath("B:/~BUN/root/SKILL-1.md")).toBe(BUILT_IN_PATH)
    expect(shownSkillPath("/p/.anvil/skills/a/SKILL.md", (p) => p.replace("/p/", ""))).toBe(".anvil/skills/a/SKILL.md")
  })

  test("through the binary: anvil skills, the skill list and a load name no $bunfs path, and the load returns the instructions", async () => {
    const root = project({ ".anvil/skills/create-skill/SKILL.md": "---\nname: create-skill\ndescription: Mine overrides the built-in one.\n---\nMine.\n" })
    const bare = project()
    const listed = await runBinary(["skills", "--json"], { cwd: bare })
    expect(listed.stdout).not.toContain("$bunfs")
    expect(JSON.parse(listed.stdout).skills).toContainEqual(expect.objectContaining({ name: "create-skill", source: "builtin", path: BUILT_IN_PATH }))
    const human = await runBinary(["skills"], { cwd: bare })
    expect(human.stdout).not.toContain("$bunfs")
    const list = JSON.parse((await runBinary(["tool", "skill", "{}"], { cwd: bare })).stdout)
    expect(list.data.skills[0]).toMatchObject({ name: "create-skill", path: BUILT_IN_PATH })
    const load = JSON.parse((await runBinary(["tool", "skill", '{"action":"load","name":"create-skill"}'], { cwd: bare })).stdout)
    expect(load.status).toBe("success")
    expect(load.data.path).toBe(BUILT_IN_PATH)
    expect(load.text).toContain("Source: builtin (part of anvil)")
    expect(load.data.content).toContain("SKILL.md")
    expect(JSON.stringify(load)).not.toContain("$bunfs")
    // A project skill hiding the built-in one names what it overrides the same way.
    const over = await runBinary(["skills", "--json"], { cwd: root })
    expect(over.stdout).not.toContain("$bunfs")
    expect(JSON.parse(over.stdout).skills[0].overrides).toEqual([{ source: "builtin", path: BUILT_IN_PATH }])
    const loaded = JSON.parse((await runBinary(["tool", "skill", '{"action":"load","name":"create-skill"}'], { cwd: root })).stdout)
    expect(loaded.data.overrides).toEqual([{ source: "builtin", path: BUILT_IN_PATH }])
  })
})
