import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { anvilBinary, runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { project, tempDir } from "../support/harness.ts"

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
