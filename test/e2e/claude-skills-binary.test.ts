import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

setDefaultTimeout(60_000)
beforeAll(() => void anvilBinary(), 120_000)

// SKILL.md files as Claude Code loads them and the Agent Skills format would not: no front matter, no description,
// a name that is no skill name, front matter YAML refuses, hooks nested in the front matter.
describe("skills Claude Code loads, through the binary", () => {
  test("anvil skills lists them with a warning each; what cannot be a skill stays invalid; a loaded one runs", async () => {
    const root = project({
      ".claude/skills/pdf/SKILL.md": "# PDF tools\n\nUse pypdf to read PDFs.\n",
      ".claude/skills/deploy/SKILL.md": "---\nname: deploy\n---\n## Deploy helper\n\nRun ./deploy.sh.\n",
      ".claude/skills/upper/SKILL.md": "---\nname: My Skill\ndescription: Upper.\n---\nBody.\n",
      ".claude/skills/quoted/SKILL.md": '---\nname: quoted\ndescription: "left open\nmodel: opus\n---\nQuoted instructions.\n',
      ".claude/skills/hooked/SKILL.md":
        "---\nname: hooked\ndescription: Has hooks.\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: ./check.sh\n---\nBody.\n",
      ".claude/skills/empty/SKILL.md": "---\nname: empty\n---\n",
    })
    const out = await runBinary(["skills", "--json"], { cwd: root, env: { HOME: tempDir("anvil-home-") } })
    expect(out.code).toBe(0)
    const listed = JSON.parse(out.stdout)
    const byName = Object.fromEntries(listed.skills.map((s: { name: string; description: string; warnings: Array<string> }) => [s.name, [s.description, s.warnings]]))
    expect(byName).toMatchObject({
      pdf: ["PDF tools", [expect.stringContaining("there is no front matter")]],
      deploy: ["Deploy helper", ["the front matter has no 'description': it is the first line of the instructions, as in Claude Code"]],
      upper: ["Upper.", [expect.stringContaining("the skill is named after its folder, 'upper', as Claude Code names it")]],
      quoted: ["Quoted instructions.", ["the front matter was not read (line 3: unterminated double-quoted value); the skill loads without it, as in Claude Code"]],
      hooked: ["Has hooks.", []],
    })
    expect(listed.invalid).toEqual([
      expect.objectContaining({ name: "empty", reason: "the front matter has no 'description', and there are no instructions to take one from" }),
    ])
    const load = await runBinary(["tool", "skill", '{"action": "load", "name": "pdf"}'], { cwd: root, env: { HOME: tempDir("anvil-home-") } })
    expect(JSON.parse(load.stdout)).toMatchObject({ status: "success", data: { name: "pdf" } })
    expect(JSON.parse(load.stdout).text).toContain("Use pypdf to read PDFs.")
  })

  test("disable-model-invocation: true: the model can neither list nor load it; a person's /name runs it", async () => {
    const root = project({
      ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ships to production.\ndisable-model-invocation: true\n---\nRun ./ship.sh $ARGUMENTS.\n",
      ".claude/skills/notes/SKILL.md": "---\nname: notes\ndescription: Takes notes.\n---\nWrite notes.\n",
    })
    const env = { HOME: tempDir("anvil-home-") }
    const load = JSON.parse((await runBinary(["tool", "skill", '{"name": "deploy"}'], { cwd: root, env })).stdout)
    expect(load.error.code).toBe("PERMISSION_DENIED")
    expect(load.error.message).toContain("only a person runs it, by typing /deploy")
    const list = JSON.parse((await runBinary(["tool", "skill", '{"action": "list"}'], { cwd: root, env })).stdout)
    expect(list.data.skills.map((s: { name: string }) => s.name)).toEqual(["create-skill", "notes"])
    const server = fakeOpenAI([{ text: "shipped" }, { text: "ok" }])
    try {
      const modelEnv = { ...env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" }
      const run = await runBinary(["-p", "/deploy prod", "--model", "openai/gpt-test"], { cwd: root, env: modelEnv })
      expect(run.stdout).toContain("shipped")
      const sent = JSON.stringify(server.requests[0]!.body.messages)
      expect(sent).toContain("Run ./ship.sh prod.")
      expect(sent).toContain("- notes: Takes notes.")
      expect(sent).not.toContain("Ships to production.")
    } finally {
      server.stop()
    }
  })
})

// Claude Code's "How a skill gets its command name": a skill folder's name is what a person types and what loads it;
// the front matter's `name` only labels it, except for the one SKILL.md at a plugin's root. Its config folder is the
// one rule (workspace/state-dir.ts): `$CLAUDE_CONFIG_DIR` when absolute, else ~/.claude.
describe("skill names and Claude Code's config folder, through the binary", () => {
  test("the folder names the skill: /folder runs it, the front matter's name is its display name and a warning", async () => {
    const root = project({ ".claude/skills/deploy-staging/SKILL.md": "---\nname: stage-deploy\ndescription: Deploys to staging.\n---\nRun ./stage.sh $ARGUMENTS now.\n" })
    const env = { HOME: tempDir("anvil-home-") }
    const listed = JSON.parse((await runBinary(["skills", "--json"], { cwd: root, env })).stdout)
    const mine = listed.skills.find((s: { name: string }) => s.name === "deploy-staging")
    expect(mine).toMatchObject({ display_name: "stage-deploy", warnings: [expect.stringContaining("the skill is 'deploy-staging' (run as /deploy-staging")] })
    expect(listed.skills.map((s: { name: string }) => s.name)).not.toContain("stage-deploy")
    const server = fakeOpenAI([{ text: "staged" }])
    try {
      const run = await runBinary(["-p", "/deploy-staging eu", "--model", "openai/gpt-test"], { cwd: root, env: { ...env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test" } })
      expect(run.stdout).toContain("staged")
      const sent = JSON.stringify(server.requests[0]!.body.messages)
      expect(sent).toContain("Run ./stage.sh eu now.")
      expect(sent).toContain("- deploy-staging: Deploys to staging.")
    } finally {
      server.stop()
    }
  })

  test("a plugin's root SKILL.md is named by its front matter; CLAUDE_CONFIG_DIR's skills/ replaces ~/.claude/skills", async () => {
    const home = tempDir("anvil-home-")
    const configDir = tempDir("anvil-claude-config-")
    writeTree(configDir, { "skills/from-config-dir/SKILL.md": "---\ndescription: In CLAUDE_CONFIG_DIR.\n---\nx\n" })
    writeTree(home, {
      ".claude/skills/from-home/SKILL.md": "---\ndescription: In ~/.claude.\n---\nx\n",
      ".config/anvil/plugins/solo/.claude-plugin/plugin.json": JSON.stringify({ name: "solo" }),
      ".config/anvil/plugins/solo/SKILL.md": "---\nname: review\ndescription: The plugin's one skill.\n---\nReview it.\n",
    })
    const root = project()
    const names = async (env: Record<string, string>) =>
      JSON.parse((await runBinary(["skills", "--json"], { cwd: root, env })).stdout).skills.map((s: { name: string; plugin?: string }) => s.name)
    expect(await names({ HOME: home, CLAUDE_CONFIG_DIR: configDir })).toEqual(["create-skill", "from-config-dir", "review"])
    expect(await names({ HOME: home })).toEqual(["create-skill", "from-home", "review"])
    const plugins = JSON.parse((await runBinary(["plugins", "--json"], { cwd: root, env: { HOME: home } })).stdout)
    expect(plugins.plugins.find((p: { name: string }) => p.name === "solo").skills).toEqual(["review"])
    // A relative CLAUDE_CONFIG_DIR is not Claude Code's folder for anvil (the sandbox guards only an absolute one).
    expect(await names({ HOME: home, CLAUDE_CONFIG_DIR: "relative/dir" })).toEqual(["create-skill", "from-home", "review"])
  })
})
