import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { replaySession, SessionError } from "../../src/agent/session-store.ts"
import { jsonLines, runAnvil } from "../support/anvil-cli.ts"
import { project } from "../support/harness.ts"

setDefaultTimeout(60_000)

const header = { type: "session", version: 1, id: "s1", created_at: "2026-01-01T00:00:00Z", cwd: ".", model: "m", profile: "code", engine: "native" }

describe("session files are decoded with their Schemas", () => {
  test("a line of the wrong shape is a SessionError naming the line and the field", () => {
    const text = [header, { type: "item", item: { type: "user", text: 5 } }, { type: "turn_end", result: {} }].map((l) => JSON.stringify(l)).join("\n")
    const loaded = replaySession(text, "s.jsonl")
    expect(loaded).toBeInstanceOf(SessionError)
    expect((loaded as SessionError).message).toBe("s.jsonl: line 2 is not a session record (Expected string at item.text)")
    const unknownType = replaySession([header, { type: "telemetry" }].map((l) => JSON.stringify(l)).join("\n"), "s.jsonl")
    expect(unknownType).toBeInstanceOf(SessionError)
  })

  test("resuming a damaged session through the CLI reports it as a configuration error (exit 3), never a crash", async () => {
    const root = project({ "turns.json": JSON.stringify([{ text: "first answer" }, { text: "second" }]) })
    const first = await runAnvil(["run", "--model", "replay/turns.json", "--format", "stream-json", "hello"], { cwd: root })
    expect(first.code).toBe(0)
    const id = jsonLines(first.stdout).find((e) => e.type === "system" && e.subtype === "init").session_id as string
    const file = join(root, ".anvil", "sessions", `${id}.jsonl`)
    expect(existsSync(file)).toBe(true)
    // A tool item whose envelope lost its status: the history would be unusable.
    const damaged = readFileSync(file, "utf8").replace('"type":"assistant"', '"type":"assistant","tool_calls":"none","x":1').replace(/"tool_calls":\[\],?/, "")
    writeFileSync(file, damaged)
    const again = await runAnvil(["run", "--model", "replay/turns.json", "--session", id, "again"], { cwd: root })
    expect(again.code).toBe(3)
    expect(again.stderr).toContain(`${id}.jsonl)`)
    expect(again.stderr).toContain(`Session '${id}' is damaged and cannot be continued: line`)
    expect(again.stderr).toContain("is not a session record")
    expect(again.stderr).toContain("Start a new session")
    expect(again.stderr).not.toContain("internal error")
    // --continue passes a damaged session over, and says so when that leaves nothing to continue.
    const continued = await runAnvil(["run", "--model", "replay/turns.json", "--continue", "again"], { cwd: root })
    expect(continued.code).toBe(3)
    expect(continued.stderr).toContain(`This project's one session has no answer to continue from (it is damaged: ${id} (line `)
  })

  test("anvil sessions lists a damaged session marked with what is wrong, beside the good ones", async () => {
    const root = project({ "turns.json": JSON.stringify([{ text: "a1" }, { text: "a2" }, { text: "a3" }]) })
    const ids: Array<string> = []
    for (const prompt of ["good", "torn middle", "bad header"]) {
      const r = await runAnvil(["run", "--model", "replay/turns.json", "--format", "stream-json", prompt], { cwd: root })
      expect(r.code).toBe(0)
      ids.push(jsonLines(r.stdout).find((e) => e.type === "system" && e.subtype === "init").session_id as string)
    }
    const fileOf = (id: string) => join(root, ".anvil", "sessions", `${id}.jsonl`)
    const lines = readFileSync(fileOf(ids[1]!), "utf8").split("\n")
    lines.splice(2, 0, '{"type":"item","item":{"ty')
    writeFileSync(fileOf(ids[1]!), lines.join("\n"))
    writeFileSync(fileOf(ids[2]!), readFileSync(fileOf(ids[2]!), "utf8").replace(/^[^\n]*/, '{"type":"session"}'))
    const listed = await runAnvil(["sessions", "--json"], { cwd: root })
    expect(listed.code).toBe(0)
    const byId = new Map((JSON.parse(listed.stdout) as Array<any>).map((s) => [s.id, s]))
    expect(byId.size).toBe(3)
    expect(byId.get(ids[0]!).damaged).toBeUndefined()
    expect(byId.get(ids[0]!).title).toBe("good")
    expect(byId.get(ids[1]!)).toMatchObject({ damaged: "line 3 is not valid JSON", model: "replay/turns.json" })
    expect(byId.get(ids[2]!).damaged).toContain("line 1 is not a session record")
    const text = await runAnvil(["sessions"], { cwd: root })
    expect(text.stdout).toContain("DAMAGED: line 3 is not valid JSON")
    const resumed = await runAnvil(["run", "--model", "replay/turns.json", "-f", "json", "--session", ids[2]!, "again"], { cwd: root })
    expect(resumed.code).toBe(3)
    expect(JSON.parse(resumed.stdout).errors[0]).toContain(`Session '${ids[2]}' is damaged and cannot be continued: line 1 is not a session record`)
  })

  test("a last line a crash cut short is cut off when the session resumes, so the file stays whole", async () => {
    const root = project({ "turns.json": JSON.stringify([{ text: "an answer" }]) })
    const first = await runAnvil(["run", "--model", "replay/turns.json", "--format", "stream-json", "one"], { cwd: root })
    const id = jsonLines(first.stdout).find((e) => e.type === "system" && e.subtype === "init").session_id as string
    const file = join(root, ".anvil", "sessions", `${id}.jsonl`)
    writeFileSync(file, `${readFileSync(file, "utf8")}{"type":"item","item":{"type":"user","te`)
    for (const prompt of ["two", "three"]) {
      const again = await runAnvil(["run", "--model", "replay/turns.json", "--session", id, prompt], { cwd: root })
      expect(again.code).toBe(0)
    }
    const text = readFileSync(file, "utf8")
    expect(text).not.toContain('"te{')
    const loaded = replaySession(text, file)
    if (loaded instanceof SessionError) throw loaded
    expect(loaded.turns).toBe(3)
    expect(loaded.items.filter((i) => i.type === "user").map((i) => i.text)).toEqual(["one", "two", "three"])
  })
})
