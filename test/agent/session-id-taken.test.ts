import { afterEach, describe, expect, test } from "bun:test"
import { Effect, Layer } from "effect"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { createSession, newSessionId } from "../../src/agent/session-store.ts"
import { project } from "../support/harness.ts"

/**
 * Session ids are the second plus four random hex digits: anvils started together in one project (parallel CI
 * jobs) can draw the same one. The file is created exclusively, so the second used to fail its whole run with
 * "Could not create a session file"; it now draws again.
 */

const random = Math.random
afterEach(() => {
  Math.random = random
})

describe("a session id another anvil took is drawn again", () => {
  test("the first suffix drawn is taken (its file exists): the session gets the next one and the planted file stays", async () => {
    const root = project({}, { marker: false })
    const dir = join(root, ".anvil", "sessions")
    mkdirSync(dir, { recursive: true })
    // Every second the call may fall in, with the suffix the first draw gives.
    const now = Date.now()
    const taken: Array<string> = []
    for (let s = -2; s <= 30; s++) {
      const id = newSessionId(now + s * 1000, () => 0)
      writeFileSync(join(dir, `${id}.jsonl`), "another anvil's session\n")
      taken.push(id)
    }
    let calls = 0
    Math.random = () => (calls++ === 0 ? 0 : 0.5)
    const writer = await Effect.runPromise(
      Effect.scoped(createSession(root, { cwd: ".", model: "openai/m", profile: "code", engine: "native" })).pipe(
        Effect.provide(Layer.merge(NodeFileSystem.layer, NodePath.layer)),
      ),
    )
    Math.random = random
    expect(taken).not.toContain(writer.id)
    expect(writer.id).toEndWith("-7fff")
    expect(JSON.parse(readFileSync(writer.file, "utf8").split("\n")[0]!)).toMatchObject({ type: "session", id: writer.id })
    for (const id of taken) expect(readFileSync(join(dir, `${id}.jsonl`), "utf8")).toBe("another anvil's session\n")
  })
})
