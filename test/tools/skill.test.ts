import { describe, expect, test } from "bun:test"
import { Effect } from "effect"
import { readFileSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { PROFILES } from "../../src/agent/profiles.ts"
import type { PermissionRequest } from "../../src/permission/permissions.ts"
import { skillTool } from "../../src/tools/skill.ts"
import { builtinTools, callTool, project, tempDir, writeTree } from "../support/harness.ts"

const repoSkills = join(import.meta.dir, "..", "..", "skills")
const skillMd = (name: string, description: string, body = `# ${name}\n\nDo the ${name} thing.\n`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`

/** A HOME of its own (no user skills unless the test writes them). */
const home = () => tempDir("anvil-home-")

describe("skill list", () => {
  test("lists the built-in create-skill, with source, description and path", async () => {
    const root = project()
    const { envelope } = await callTool(root, "skill", { action: "list" }, { env: { HOME: home() } })
    expect(envelope.status).toBe("success")
    const skills = envelope.data.skills as Array<Record<string, unknown>>
    const builtin = skills.find((s) => s.name === "create-skill")!
    expect(builtin.source).toBe("builtin")
    expect(builtin.path).toBe(join(repoSkills, "create-skill", "SKILL.md"))
    expect(builtin.description).toStartWith("Write a new agent skill")
    expect(envelope.data.invalid).toEqual([])
    expect(envelope.text).toStartWith("# Skill: list\n")
    expect(envelope.text).toContain("- create-skill [builtin]: Write a new agent skill")
    expect(skillTool.readOnly).toBe(true)
    expect(skillTool.permission).toBe("allow")
  })

  test("without an action and a name, the call lists", async () => {
    const { envelope } = await callTool(project(), "skill", {}, { env: { HOME: home() } })
    expect(envelope.text).toStartWith("# Skill: list\n")
  })

  test("a project skill overrides the built-in of the same name", async () => {
    const root = project({
      ".anvil/skills/create-skill/SKILL.md": skillMd("create-skill", "Our own way to write skills.", "# Ours\n"),
      ".anvil/skills/deploy/SKILL.md": skillMd("deploy", "Deploy the app. Use when asked to ship."),
    })
    const { envelope } = await callTool(root, "skill", { action: "list" }, { env: { HOME: home() } })
    const skills = envelope.data.skills as Array<Record<string, unknown>>
    expect(skills.map((s) => [s.name, s.source, s.path])).toEqual([
      ["create-skill", "project", ".anvil/skills/create-skill/SKILL.md"],
      ["deploy", "project", ".anvil/skills/deploy/SKILL.md"],
    ])
    expect(skills[0]!.overrides).toEqual([{ source: "builtin", path: join(repoSkills, "create-skill", "SKILL.md") }])
    const loaded = await callTool(root, "skill", { action: "load", name: "create-skill" }, { env: { HOME: home() } })
    expect(loaded.envelope.data).toMatchObject({ source: "project", content: "# Ours" })
  })

  test("precedence: project folders, then user folders, then built-in; skills.paths before the default folder", async () => {
    const h = home()
    const outside = tempDir("anvil-skills-")
    writeTree(outside, {
      "shared/SKILL.md": skillMd("shared", "From the outside folder."),
      "only-outside/SKILL.md": skillMd("only-outside", "Only here."),
    })
    writeTree(h, {
      ".config/anvil/skills/shared/SKILL.md": skillMd("shared", "From the user's config folder."),
      ".config/anvil/skills/mine/SKILL.md": skillMd("mine", "The user's own."),
      "elsewhere/tilde/SKILL.md": skillMd("tilde", "Reached through ~."),
    })
    const root = project({
      "team-skills/shared/SKILL.md": skillMd("shared", "From the project's configured folder."),
      ".anvil/skills/shared/SKILL.md": skillMd("shared", "From .anvil/skills."),
      ".anvil/skills/mine/SKILL.md": skillMd("mine", "The project's mine."),
    })
    const configOverrides = { skills: { paths: [outside, "team-skills", "~/elsewhere"] } }
    const { envelope } = await callTool(root, "skill", { action: "list" }, { env: { HOME: h }, configOverrides })
    const skills = envelope.data.skills as Array<Record<string, any>>
    const byName = Object.fromEntries(skills.map((s) => [s.name, s]))
    expect(byName.shared.description).toBe("From the project's configured folder.")
    expect(byName.shared.source).toBe("project")
    expect(byName.shared.overrides.map((o: { path: string }) => o.path)).toEqual([
      ".anvil/skills/shared/SKILL.md",
      join(outside, "shared", "SKILL.md"),
      join(h, ".config/anvil/skills/shared/SKILL.md"),
    ])
    expect(byName.mine).toMatchObject({ source: "project", description: "The project's mine." })
    expect(byName["only-outside"]).toMatchObject({ source: "user", path: join(outside, "only-outside", "SKILL.md") })
    expect(byName.tilde).toMatchObject({ source: "user", path: join(h, "elsewhere/tilde/SKILL.md") })
    expect(byName["create-skill"].source).toBe("builtin")
  })

  test("XDG_CONFIG_HOME names the user folder", async () => {
    const xdg = tempDir("anvil-xdg-")
    writeTree(xdg, { "anvil/skills/xdg-one/SKILL.md": skillMd("xdg-one", "From XDG.") })
    const { envelope } = await callTool(project(), "skill", { action: "list" }, { env: { HOME: home(), XDG_CONFIG_HOME: xdg } })
    const skills = envelope.data.skills as Array<Record<string, unknown>>
    expect(skills.find((s) => s.name === "xdg-one")).toMatchObject({ source: "user", path: join(xdg, "anvil/skills/xdg-one/SKILL.md") })
  })

  test("invalid SKILL.md files are listed with the reason and override nothing", async () => {
    const root = project({
      ".anvil/skills/empty/SKILL.md": "---\nname: empty\n---\n",
      ".anvil/skills/lower/skill.md": skillMd("lower", "Misnamed file."),
      ".anvil/skills/not-a-skill/README.md": "just a folder",
      ".anvil/skills/stray.md": "a file, not a folder",
    })
    const { envelope } = await callTool(root, "skill", { action: "list" }, { env: { HOME: home() } })
    expect(envelope.status).toBe("success")
    expect(envelope.data.invalid).toEqual([
      { name: "empty", source: "project", path: ".anvil/skills/empty/SKILL.md", reason: "the front matter has no 'description', and there are no instructions to take one from" },
      { name: "lower", source: "project", path: ".anvil/skills/lower/skill.md", reason: "found 'skill.md': the file must be named SKILL.md" },
    ])
    const skills = envelope.data.skills as Array<Record<string, unknown>>
    expect(skills.map((s) => [s.name, s.source])).toEqual([["create-skill", "builtin"]])
    expect(envelope.text).toContain("Invalid skills (cannot be loaded):\n- empty [project] .anvil/skills/empty/SKILL.md: the front matter has no 'description'")

    const load = await callTool(root, "skill", { action: "load", name: "empty" }, { env: { HOME: home() } })
    expect(load.envelope.error?.code).toBe("EXECUTION_ERROR")
    expect(load.envelope.error?.message).toContain("the front matter has no 'description'")
  })

  test("what Claude Code loads loads, with a warning: no front matter, no description, a run-on or unreadable front matter", async () => {
    const root = project({
      ".anvil/skills/create-skill/SKILL.md": "# My own create-skill\n\nSteps.\n",
      ".anvil/skills/no-desc/SKILL.md": "---\nname: no-desc\n---\nDescribed by this line.\n",
      ".anvil/skills/colon/SKILL.md": "---\nname: colon\ndescription: Use when: always\n  and more\n---\nbody\n",
      ".anvil/skills/broken/SKILL.md": "---\nname: broken\ndescription: 'open\n---\nThe instructions.\n",
      ".anvil/skills/hooked/SKILL.md": "---\nname: hooked\ndescription: Has hooks.\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n---\nbody\n",
    })
    const { envelope } = await callTool(root, "skill", { action: "list" }, { env: { HOME: home() } })
    expect(envelope.data.invalid).toEqual([])
    const skills = envelope.data.skills as Array<Record<string, unknown>>
    expect(skills.map((s) => [s.name, s.source, s.description])).toEqual([
      ["broken", "project", "The instructions."],
      ["colon", "project", "Use when: always and more"],
      ["create-skill", "project", "My own create-skill"],
      ["hooked", "project", "Has hooks."],
      ["no-desc", "project", "Described by this line."],
    ])
    const load = await callTool(root, "skill", { action: "load", name: "broken" }, { env: { HOME: home() } })
    expect(load.envelope.data.warnings).toEqual(["the front matter was not read (line 3: unterminated single-quoted value); the skill loads without it, as in Claude Code"])
    expect(load.envelope.text).toContain("The instructions.")
  })

  test("a front-matter name other than its folder's only labels the skill: it loads by its folder's name, as in Claude Code, with a warning", async () => {
    const root = project({ ".anvil/skills/folder-name/SKILL.md": skillMd("real-name", "Mismatched.") })
    const warning =
      "the front matter's name 'real-name' differs from its folder 'folder-name': the skill is 'folder-name' (run as /folder-name, loaded by that name), as Claude Code names it; 'real-name' is only its display name"
    const { envelope } = await callTool(root, "skill", { action: "load", name: "folder-name" }, { env: { HOME: home() } })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toMatchObject({ name: "folder-name", warnings: [warning] })
    expect(envelope.text).toContain(`Warning: ${warning}`)
    const list = await callTool(root, "skill", { action: "list" }, { env: { HOME: home() } })
    expect(list.envelope.data.skills).toContainEqual(expect.objectContaining({ name: "folder-name", display_name: "real-name" }))
    // The display name loads nothing; the error names the skill it labels.
    const byLabel = await callTool(root, "skill", { action: "load", name: "real-name" }, { env: { HOME: home() } })
    expect(byLabel.envelope.error?.code).toBe("NOT_FOUND")
    expect(byLabel.envelope.error?.message).toContain("'real-name' is the display name of the skill 'folder-name' (its folder's name), which loads by that name.")
  })

  test("configuration problems are reported, not fatal", async () => {
    const { envelope } = await callTool(project(), "skill", { action: "list" }, {
      env: {},
      configOverrides: { skills: { paths: ["missing-folder", "~/x", 3] } },
    })
    expect(envelope.status).toBe("success")
    expect(envelope.data.problems).toEqual([
      "skills.paths: '~/x' needs HOME, which is not set",
      "skills.paths: 3 is not a folder name",
      expect.stringMatching(/^skills\.paths: the folder .*missing-folder does not exist$/),
    ])
  })
})

describe("skill load", () => {
  const tree = {
    ".anvil/skills/release/SKILL.md": skillMd("release", "Cut a release. Use for release notes.", "# Release\n\n1. Run `scripts/check.sh`.\n"),
    ".anvil/skills/release/scripts/check.sh": "#!/bin/sh\necho ok\n",
    ".anvil/skills/release/references/api.md": "# API\n",
    ".anvil/skills/release/.hidden": "secret",
  }

  test("returns the instructions without the front matter and the skill's other files", async () => {
    const root = project(tree)
    const { envelope, meta } = await callTool(root, "skill", { action: "load", name: "release" }, { env: { HOME: home() } })
    expect(envelope.status).toBe("success")
    expect(envelope.data).toEqual({
      name: "release",
      description: "Cut a release. Use for release notes.",
      source: "project",
      path: ".anvil/skills/release/SKILL.md",
      dir: ".anvil/skills/release",
      content: "# Release\n\n1. Run `scripts/check.sh`.",
      files: ["references/api.md", "scripts/check.sh"],
    })
    expect(envelope.text).toStartWith("# Skill: release\n\nSource: project (.anvil/skills/release/SKILL.md)\n")
    expect(envelope.text).not.toContain("description: Cut")
    expect(envelope.text).toContain("- references/api.md\n- scripts/check.sh\nOpen one with Read(path=\".anvil/skills/release/<file>\")")
    expect(meta.tool_name).toBe("Skill")
    // The file list is right: Read reaches them inside the project.
    const read = await callTool(root, "read", { path: ".anvil/skills/release/references/api.md" })
    expect(read.envelope.data.content).toContain("# API")
  })

  test("the action defaults to load when a name is given; names are matched case-insensitively; 'skill' is an alias of name", async () => {
    const root = project(tree)
    expect((await callTool(root, "skill", { name: "release" }, { env: { HOME: home() } })).envelope.data.name).toBe("release")
    expect((await callTool(root, "Skill", { name: "Release" }, { env: { HOME: home() } })).envelope.data.name).toBe("release")
    expect((await callTool(root, "skill", { skill: "release" }, { env: { HOME: home() } })).envelope.data.name).toBe("release")
  })

  test("the built-in create-skill loads whole", async () => {
    const { envelope } = await callTool(project(), "skill", { action: "load", name: "create-skill" }, { env: { HOME: home() } })
    const text = readFileSync(join(repoSkills, "create-skill", "SKILL.md"), "utf8")
    expect(envelope.data.source).toBe("builtin")
    expect(envelope.data.content).toBe(text.slice(text.indexOf("# Creating a skill")).trimEnd())
  })

  test("an unknown name is NOT_FOUND with the available names and the closest as a hint", async () => {
    const root = project(tree)
    const { envelope, meta } = await callTool(root, "skill", { action: "load", name: "relase" }, { env: { HOME: home() } })
    expect(envelope.status).toBe("error")
    expect(envelope.error?.code).toBe("NOT_FOUND")
    expect(envelope.error?.message).toBe("Unknown skill 'relase'. Available skills: create-skill, release.")
    expect(meta.retrieval_hints).toEqual([
      { action: "Skill", priority: "high", args: { action: "load", name: "release" } },
      { action: "Skill", priority: "medium", args: { action: "list" } },
    ])
    expect(envelope.text).toContain('* Skill(action="load", name="release")')
  })

  test("load without a name, a malformed name and a file with list are INVALID_PARAM naming the field", async () => {
    const root = project(tree)
    const noName = await callTool(root, "skill", { action: "load" }, { env: { HOME: home() } })
    expect(noName.envelope.error?.code).toBe("INVALID_PARAM")
    expect(noName.envelope.error?.field_errors).toEqual([{ field: "name", message: "required when action is 'load'" }])
    for (const name of ["../x", "../../etc/passwd", "a/b", "/abs", "a b"]) {
      const bad = await callTool(root, "skill", { action: "load", name }, { env: { HOME: home() } })
      expect(bad.envelope.error?.code).toBe("INVALID_PARAM")
      expect(bad.envelope.error?.field_errors?.[0]?.field).toBe("name")
    }
    const fileWithList = await callTool(root, "skill", { action: "list", file: "x" }, { env: { HOME: home() } })
    expect(fileWithList.envelope.error?.field_errors?.[0]?.field).toBe("file")
    const badAction = await callTool(root, "skill", { action: "delete", name: "release" }, { env: { HOME: home() } })
    expect(badAction.envelope.error?.field_errors?.[0]?.field).toBe("action")
  })

  test("a skill's file is returned through the tool, also for a skill outside the project", async () => {
    const h = home()
    writeTree(h, {
      ".config/anvil/skills/outer/SKILL.md": skillMd("outer", "Lives in the user's folder."),
      ".config/anvil/skills/outer/references/guide.md": "# Guide\nstep\n",
      ".config/anvil/skills/outer/assets/logo.bin": new Uint8Array([0, 1, 2, 3]),
      "secret.txt": "top secret",
    })
    symlinkSync(join(h, "secret.txt"), join(h, ".config/anvil/skills/outer/references/escape.md"))
    const root = project()
    const env = { HOME: h }
    const dir = join(h, ".config/anvil/skills/outer")

    const load = await callTool(root, "skill", { action: "load", name: "outer" }, { env })
    expect(load.envelope.data).toMatchObject({ source: "user", dir, files: ["assets/logo.bin", "references/escape.md", "references/guide.md"] })
    expect(load.envelope.text).toContain(`Open one with Skill(action="load", name="outer", file="<file>")`)
    // read cannot reach it: it is outside the project root.
    expect((await callTool(root, "read", { path: join(dir, "references/guide.md") }, { env })).envelope.error?.code).toBe("ACCESS_DENIED")

    const file = await callTool(root, "skill", { action: "load", name: "outer", file: "references/guide.md" }, { env })
    expect(file.envelope.status).toBe("success")
    expect(file.envelope.data).toEqual({ name: "outer", source: "user", file: "references/guide.md", path: join(dir, "references/guide.md"), content: "# Guide\nstep\n" })
    expect(file.envelope.text).toBe("# Skill: outer/references/guide.md\n\n# Guide\nstep")

    const code = async (f: string) => (await callTool(root, "skill", { action: "load", name: "outer", file: f }, { env })).envelope.error?.code
    expect(await code("../../../../secret.txt")).toBe("ACCESS_DENIED")
    expect(await code(join(h, "secret.txt"))).toBe("ACCESS_DENIED")
    expect(await code("references/escape.md")).toBe("ACCESS_DENIED") // a symbolic link out of the folder
    expect(await code("references/missing.md")).toBe("NOT_FOUND")
    expect(await code("references")).toBe("IS_DIRECTORY")
    expect(await code("assets/logo.bin")).toBe("BINARY_FILE")
    // The folder itself is inside, not outside: a folder, as "references" is.
    for (const f of [".", "", "./", "references/.."]) expect(await code(f)).toBe("IS_DIRECTORY")
    const itself = await callTool(root, "skill", { action: "load", name: "outer", file: "" }, { env })
    expect(itself.envelope.error?.message).toContain("names the skill's folder itself")
  })

  test("a skills.paths folder outside the project is read (skills live outside projects)", async () => {
    const outside = tempDir("anvil-skills-")
    writeTree(outside, { "far/SKILL.md": skillMd("far", "Far away.") })
    const { envelope } = await callTool(project(), "skill", { action: "load", name: "far" }, {
      env: { HOME: home() },
      configOverrides: { skills: { paths: [outside] } },
    })
    expect(envelope.data).toMatchObject({ name: "far", source: "user", path: join(outside, "far", "SKILL.md"), content: "# far\n\nDo the far thing." })
  })

  test("more than 200 files: the first 200 are listed, the total stated, and the result is partial", async () => {
    const files: Record<string, string> = { ".anvil/skills/big/SKILL.md": skillMd("big", "Many files.") }
    for (let i = 0; i < 205; i++) files[`.anvil/skills/big/data/f${String(i).padStart(3, "0")}.txt`] = "x"
    const { envelope, meta } = await callTool(project(files), "skill", { action: "load", name: "big" }, { env: { HOME: home() } })
    expect(envelope.status).toBe("partial")
    expect(envelope.data.truncated).toBe(true)
    expect((envelope.data.files as Array<string>).length).toBe(200)
    expect(meta.truncation?.reason).toBe("file_limit")
    // The total is stated, with the call that lists them all.
    expect(envelope.text).toContain('(the first 200 of 205 files are listed; Glob(pattern=".anvil/skills/big/**") lists them all)')
    expect(envelope.data.total_files).toBe(205)
    expect(meta.truncation?.total_estimate).toBe(205)
  })
})

describe("skill permissions (loading is subject to the permission policy)", () => {
  const tree = {
    ".anvil/skills/deploy-prod/SKILL.md": skillMd("deploy-prod", "Deploy to production."),
    ".anvil/skills/notes/SKILL.md": skillMd("notes", "Write notes."),
  }

  test("patterns in permission.skill match the skill's name; a denied skill is not listed", async () => {
    const root = project(tree)
    const configOverrides = { permission: { skill: { "*": "allow", "deploy-*": "deny" } } }
    const env = { HOME: home() }
    const denied = await callTool(root, "skill", { action: "load", name: "deploy-prod" }, { env, configOverrides })
    expect(denied.envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(denied.envelope.error?.message).toContain("(deploy-prod)")
    const allowed = await callTool(root, "skill", { action: "load", name: "notes" }, { env, configOverrides })
    expect(allowed.envelope.status).toBe("success")
    const list = await callTool(root, "skill", { action: "list" }, { env, configOverrides })
    expect((list.envelope.data.skills as Array<{ name: string }>).map((s) => s.name)).toEqual(["create-skill", "notes"])
    expect(list.envelope.text).toContain("1 more skill is denied by the permission settings.")
  })

  test("'ask' asks with the skill's name as the subject; a refusal is PERMISSION_DENIED", async () => {
    const root = project(tree)
    const asked: Array<PermissionRequest> = []
    const { envelope } = await callTool(root, "skill", { action: "load", name: "notes" }, {
      env: { HOME: home() },
      configOverrides: { permission: { skill: { notes: "ask" } } },
      onAsk: (r) => Effect.sync(() => (asked.push(r), false)),
    })
    expect(envelope.error?.code).toBe("PERMISSION_DENIED")
    expect(asked.map((r) => r.subjects)).toEqual([{ kind: "name", values: ["notes"] }])
    // list has no subject: the pattern does not apply to it.
    const list = await callTool(root, "skill", { action: "list" }, {
      env: { HOME: home() },
      configOverrides: { permission: { skill: { notes: "ask" } } },
      onAsk: () => Effect.die("list must not ask"),
    })
    expect(list.envelope.status).toBe("success")
  })

  test("permission.skill as a whole level covers list and load", async () => {
    const { envelope } = await callTool(project(tree), "skill", { action: "list" }, {
      env: { HOME: home() },
      configOverrides: { permission: { skill: "deny" } },
    })
    expect(envelope.error?.code).toBe("PERMISSION_DENIED")
  })
})

test("the skill tool is offered in code, plan and explore (read-only)", () => {
  for (const profile of [PROFILES.code, PROFILES.plan, PROFILES.explore]) {
    expect(profile.select(builtinTools).map((t) => t.name)).toContain("skill")
  }
})

describe("skill load with args", () => {
  test("args fill the skill's placeholders (none: the text as written, with its folder filled in); list refuses args", async () => {
    const root = project({ ".anvil/skills/deploy/SKILL.md": skillMd("deploy", "Deploys", "Deploy $0 to $1 from ${CLAUDE_SKILL_DIR}.\n") })
    const dir = join(root, ".anvil", "skills", "deploy")
    const given = await callTool(root, "skill", { name: "deploy", args: "web 'eu west'" }, { env: { HOME: home() } })
    expect(given.envelope.data.content).toBe(`Deploy web to eu west from ${dir}.`)
    expect(given.envelope.data.args).toBe("web 'eu west'")
    expect(given.envelope.text).toContain("Arguments: web 'eu west'")
    const none = await callTool(root, "skill", { name: "deploy" }, { env: { HOME: home() } })
    expect(none.envelope.data.content).toBe(`Deploy $0 to $1 from ${dir}.`)
    const listed = await callTool(root, "skill", { action: "list", args: "x" }, { env: { HOME: home() } })
    expect((listed.envelope as any).error.code).toBe("INVALID_PARAM")
  })
})
