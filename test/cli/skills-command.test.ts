import { describe, expect, test } from "bun:test"
import { join } from "node:path"
import { main } from "../../src/cli/index.ts"
import type { CliIO } from "../../src/cli/output.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

const run = async (argv: Array<string>, cwd: string, env: Record<string, string> = {}) => {
  let out = ""
  let err = ""
  const io: CliIO = { out: (t) => void (out += t), err: (t) => void (err += t), readStdin: async () => "", cwd, env }
  const code = await main(argv, io)
  return { code, out, err }
}

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`

describe("anvil skills", () => {
  test("lists name, source and description; overrides, invalid skills and the folders searched", async () => {
    const home = tempDir("anvil-home-")
    writeTree(home, { ".config/anvil/skills/mine/SKILL.md": skillMd("mine", "The user's own skill.") })
    const root = project({
      ".anvil/skills/create-skill/SKILL.md": skillMd("create-skill", "The project's version."),
      ".anvil/skills/broken/SKILL.md": "---\nname: broken\n---\n",
    })
    const { code, out, err } = await run(["skills"], root, { HOME: home })
    expect(err).toBe("")
    expect(code).toBe(0)
    const lines = out.split("\n")
    expect(lines[0]).toBe("NAME          SOURCE   DESCRIPTION")
    expect(lines[1]).toBe("create-skill  project  The project's version.")
    expect(lines[2]).toBe(`${" ".repeat(23)}overrides the built-in skill`)
    expect(lines[3]).toBe("mine          user     The user's own skill.")
    expect(out).toContain("\nInvalid (cannot be loaded):\nbroken        project  .anvil/skills/broken/SKILL.md: the front matter has no 'description', and there are no instructions to take one from\n")
    expect(out).toContain(
      `\nSearched: .anvil/skills (project), .agents/skills (project, missing), .claude/skills (project, missing), ` +
        `${join(home, ".config/anvil/skills")} (user), ${join(home, ".agents/skills")} (user, missing), ` +
        `${join(home, ".claude/skills")} (user, missing), then the built-in skills.\n`,
    )
  })

  test("--json prints skills, invalid ones, folders and problems", async () => {
    const root = project({ ".anvil/skills/one/SKILL.md": skillMd("one", "First.") })
    const { code, out } = await run(["skills", "--json"], root, { HOME: tempDir("anvil-home-") })
    expect(code).toBe(0)
    const parsed = JSON.parse(out)
    expect(Object.keys(parsed)).toEqual(["skills", "invalid", "folders", "problems"])
    expect(parsed.skills.map((s: { name: string; source: string }) => [s.name, s.source])).toEqual([
      ["create-skill", "builtin"],
      ["one", "project"],
    ])
    expect(parsed.skills[1]).toEqual({ name: "one", description: "First.", source: "project", path: join(root, ".anvil/skills/one/SKILL.md"), overrides: [], warnings: [] })
    expect(parsed.folders[0]).toEqual({ dir: join(root, ".anvil/skills"), source: "project", from: "default", exists: true })
  })

  test("skills.paths from anvil.json is honoured; --root names the project", async () => {
    const root = project({ "anvil.json": '{ "skills": { "paths": ["team"] } }', "team/review/SKILL.md": skillMd("review", "Review code.") })
    const elsewhere = tempDir()
    const { out } = await run(["--root", root, "skills"], elsewhere, { HOME: tempDir("anvil-home-") })
    expect(out).toContain("review        project  Review code.")
    expect(out).toContain("Searched: team (project), .anvil/skills (project, missing)")
  })

  test("--help, and an unexpected argument is a usage error", async () => {
    const root = project()
    const help = await run(["skills", "--help"], root)
    expect(help.code).toBe(0)
    expect(help.out).toStartWith("Usage: anvil skills [--json]")
    const bad = await run(["skills", "--nope"], root)
    expect(bad.code).toBe(2)
    expect(bad.err).toContain("unexpected argument '--nope'")
    expect((await run(["--help"], root)).out).toContain("anvil skills [--json]")
  })
})
