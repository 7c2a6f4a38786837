import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Config } from "../../src/config/config.ts"
import { PlatformLive } from "../../src/runtime.ts"
import { loadSkillCatalog } from "../../src/skills/skill-catalog.ts"
import { project, tempDir } from "../support/harness.ts"

describe("loadSkillCatalog", () => {
  test("inside the executable a built-in skill has no folder (only its SKILL.md is embedded); a user skill still overrides it", async () => {
    const bunfs = tempDir("anvil-bunfs-")
    writeFileSync(join(bunfs, "SKILL-1.md"), "---\nname: packed\ndescription: Embedded one.\n---\nInside.\n")
    writeFileSync(join(bunfs, "SKILL-2.md"), "---\nname: other\ndescription: Embedded two.\n---\nInside.\n")
    const root = project({ ".anvil/skills/other/SKILL.md": "---\nname: other\ndescription: The project's.\n---\nOurs.\n" })
    const catalog = await Effect.runPromise(
      loadSkillCatalog(root, { compiled: true, skills: { packed: join(bunfs, "SKILL-1.md"), other: join(bunfs, "SKILL-2.md") } }).pipe(
        Effect.provide(Config.layerFrom({}, {})),
        Effect.provide(PlatformLive),
      ),
    )
    expect(catalog.skills.map((s) => [s.name, s.source, s.dir])).toEqual([
      ["other", "project", join(root, ".anvil/skills/other")],
      ["packed", "builtin", undefined],
    ])
    expect(catalog.skills[0]!.overrides).toEqual([{ source: "builtin", path: join(bunfs, "SKILL-2.md") }])
    expect(catalog.skills[1]).toMatchObject({ path: join(bunfs, "SKILL-1.md"), content: "Inside." })
    // Without HOME there is no user folder; the project defaults are always searched, anvil's own first.
    expect(catalog.folders).toEqual([
      { dir: join(root, ".anvil/skills"), source: "project", from: "default", exists: true },
      { dir: join(root, ".agents/skills"), source: "project", from: "default", exists: false },
      { dir: join(root, ".claude/skills"), source: "project", from: "default", exists: false },
    ])
  })

  test("a skills.paths entry may name one skill's own folder; the same folder listed twice is searched once", async () => {
    const root = project({ "one-skill/SKILL.md": "---\nname: one-skill\ndescription: Alone.\n---\nx\n" })
    const catalog = await Effect.runPromise(
      loadSkillCatalog(root, { compiled: true, skills: {} }).pipe(
        Effect.provide(Config.layerFrom({ skills: { paths: ["one-skill", "./one-skill/"] } }, {})),
        Effect.provide(PlatformLive),
      ),
    )
    expect(catalog.skills.map((s) => [s.name, s.source, s.path])).toEqual([["one-skill", "project", join(root, "one-skill/SKILL.md")]])
    expect(catalog.folders.map((f) => f.dir)).toEqual([
      join(root, "one-skill"),
      join(root, ".anvil/skills"),
      join(root, ".agents/skills"),
      join(root, ".claude/skills"),
    ])
  })
})
