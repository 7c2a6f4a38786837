import { afterAll, describe, expect, test } from "bun:test"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { binaryRepo } from "../support/binary-repo.ts"
import { runBinary } from "../support/binary.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"

/**
 * Through the compiled binary: a session that goes on from its file (`anvil run --continue`) starts with the
 * source `resume`, as Claude Code's SessionStart does, so a hook whose matcher is `resume` runs then and one whose
 * matcher is `startup` does not; a plugin's session events carry the same source. Every start was `startup`.
 */
const stops: Array<() => void> = []
afterAll(() => stops.forEach((s) => s()))

describe("SessionStart's source", () => {
  test("startup for a new session, resume for --continue: matchers select by it, and the hooks and plugins are told it", async () => {
    const hooks = {
      SessionStart: [
        { matcher: "startup", hooks: [{ type: "command", command: "cat > startup-input.json; echo fresh >> starts.txt" }] },
        { matcher: "resume", hooks: [{ type: "command", command: "cat > resume-input.json; echo resumed >> starts.txt; echo 'the session was resumed'" }] },
      ],
    }
    const r = binaryRepo({ "a.txt": "hello\n", ".claude/settings.json": JSON.stringify({ hooks }) })
    const plugins = join(r.env.HOME, ".config", "anvil", "plugins")
    mkdirSync(plugins, { recursive: true })
    writeFileSync(
      join(plugins, "source-log.ts"),
      `import { definePlugin } from "anvil/plugin"\nimport { appendFileSync } from "node:fs"\nimport { join } from "node:path"\n` +
        `export default definePlugin({ api: 1, hooks: { "session.start": (e) => appendFileSync(join(e.root, "plugin-sources.txt"), e.source + "\\n") } })\n`,
    )
    expect((await runBinary(["plugins", "trust", "claude-settings"], { cwd: r.root, env: r.env })).code).toBe(0)
    const server = fakeOpenAI([{ text: "one" }, { text: "two" }])
    stops.push(server.stop)
    const env = { ...r.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test", ANVIL_MODEL: "openai/gpt-test" }

    expect((await runBinary(["run", "hi"], { cwd: r.root, env })).code).toBe(0)
    expect((await runBinary(["run", "--continue", "again"], { cwd: r.root, env })).code).toBe(0)

    expect(readFileSync(join(r.root, "starts.txt"), "utf8")).toBe("fresh\nresumed\n")
    expect(JSON.parse(readFileSync(join(r.root, "startup-input.json"), "utf8")).source).toBe("startup")
    const resumed = JSON.parse(readFileSync(join(r.root, "resume-input.json"), "utf8"))
    expect(resumed).toMatchObject({ hook_event_name: "SessionStart", source: "resume" })
    expect(readFileSync(join(r.root, "plugin-sources.txt"), "utf8")).toBe("startup\nresume\n")
    // What the resume hook printed reached the model of the continued session.
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("the session was resumed")
  }, 60_000)
})
