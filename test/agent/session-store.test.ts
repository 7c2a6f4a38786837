import { describe, expect, test } from "bun:test"
import { Effect, Layer, Option } from "effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import { systemError } from "effect/PlatformError"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { newSessionId, pruneSessions, replaySession, SessionError } from "../../src/agent/session-store.ts"
import { isDocPath } from "../../src/agent/file-changes.ts"

const header = { type: "session", version: 1, id: "s1", created_at: "2026-01-01T00:00:00.000Z", cwd: ".", model: "m/x", profile: "code", engine: "native" }
const line = (o: unknown) => JSON.stringify(o)
const user = (text: string) => ({ type: "item", item: { type: "user", text, source: "prompt" } })
const end = { type: "turn_end", result: {} }

describe("session files", () => {
  test("committed turns are kept; an unfinished turn and a torn last line are not", () => {
    const text = [line(header), line(user("one")), line(end), line(user("two")), '{"type":"item","it'].join("\n")
    const s = replaySession(text, "f")
    if (s instanceof SessionError) throw s
    expect(s.items).toEqual([{ type: "user", text: "one", source: "prompt" }])
    expect(s.turns).toBe(1)
    expect(s.uncommitted).toBe(true)
    expect(s.title).toBe("one")
  })

  test("discard drops the lines of a turn that never ended; compaction replaces the first items by the summary", () => {
    const text = [
      line(header),
      line(user("a")),
      line(end),
      line(user("lost")),
      line({ type: "discard" }),
      line(user("b")),
      line({ type: "todos", todos: [{ content: "x", status: "pending" }] }),
      line({ type: "compaction", replaced: 1, summary: { type: "summary", text: "S" } }),
      line(end),
    ].join("\n")
    const s = replaySession(text, "f")
    if (s instanceof SessionError) throw s
    expect(s.items.map((i) => i.text)).toEqual(["S", "b"])
    expect(s.todos).toEqual([{ content: "x", status: "pending" }])
    expect(s.turns).toBe(2)
  })

  test("the model a session switched to last is its model, after a discarded turn too; context before the first prompt is no title", () => {
    const context = { type: "item", item: { type: "user", text: "<system-reminder>start</system-reminder>", source: "context" } }
    const text = [line(header), line(context), line(user("one")), line(end), line({ type: "model", model: "m/y" }), line(user("two")), line({ type: "discard" })].join("\n")
    const s = replaySession(text, "f")
    if (s instanceof SessionError) throw s
    expect(s.model).toBe("m/y")
    expect(s.title).toBe("one")
    const plain = replaySession([line(header), line(user("one")), line(end)].join("\n"), "f")
    if (plain instanceof SessionError) throw plain
    expect(plain.model).toBe("m/x")
  })

  test("a file without a header, or broken in the middle, is an error", () => {
    expect(replaySession(line(user("x")), "f")).toBeInstanceOf(SessionError)
    expect(replaySession([line(header), "{bad", line(end), line(end)].join("\n"), "f")).toBeInstanceOf(SessionError)
  })

  test("ids sort by time", () => {
    const a = newSessionId(Date.UTC(2026, 0, 2, 3, 4, 5), () => 0.5)
    expect(a).toBe("20260102-030405-7fff")
    expect(newSessionId(Date.UTC(2026, 0, 2, 3, 4, 6), () => 0) > a).toBe(true)
  })
})

test("documentation changes", () => {
  for (const p of ["docs/guide.py", "README.md", "a/b/notes.txt", "x.rst", "y.adoc", "z.mdx", "pkg/docs/api.ts"]) expect(isDocPath(p)).toBe(true)
  for (const p of ["src/app.ts", "docsy/app.ts", "Makefile", "md.ts"]) expect(isDocPath(p)).toBe(false)
})

describe("sessions prune", () => {
  test("an empty file an hour old is removed; a file that cannot be read is kept, not taken as empty", async () => {
    const removed: Array<string> = []
    const fs = FileSystem.layerNoop({
      readDirectory: () => Effect.succeed(["empty.jsonl", "unreadable.jsonl"]),
      stat: () => Effect.succeed({ type: "File", mtime: Option.some(new Date(0)) } as unknown as FileSystem.File.Info),
      readFileString: (file) =>
        file.endsWith("unreadable.jsonl")
          ? Effect.fail(systemError({ _tag: "PermissionDenied", module: "FileSystem", method: "readFileString", pathOrDescriptor: file }))
          : Effect.succeed(""),
      remove: (file) => Effect.sync(() => void removed.push(file)),
    })
    // Every file call goes to the stub: the folder need not exist.
    const root = join(tmpdir(), "anvil-prune-no-such-folder")
    const report = await Effect.runPromise(pruneSessions(root, { empty: true, now: 2 * 60 * 60 * 1000 }).pipe(Effect.provide(Layer.mergeAll(fs, Path.layer))))
    expect(report.removed).toEqual(["empty"])
    expect(removed.map((f) => basename(f))).toEqual(["empty.jsonl"])
    expect(report.kept).toBe(1)
  })
})
