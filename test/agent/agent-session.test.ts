import { describe, expect, test } from "bun:test"
import { Effect, ManagedRuntime } from "effect"
import { existsSync } from "node:fs"
import { AgentSession, AgentSetupError, type AgentSessionOptions } from "../../src/agent/agent-session.ts"
import { makeReplay } from "../../src/llm/replay.ts"
import { builtinTools, project, tempDir } from "../support/harness.ts"

const options = (root: string, more: Partial<AgentSessionOptions> = {}): AgentSessionOptions => ({
  cwd: root,
  root,
  env: { HOME: tempDir(), PATH: process.env.PATH },
  allTools: builtinTools,
  onAsk: () => Effect.succeed(true),
  model: makeReplay([{ text: "Hello from the replay." }], "test"),
  configOverrides: { sandbox: { mode: "off" } },
  ...more,
})

describe("AgentSession (service and layer)", () => {
  test("the layer opens a session that runs turns; ending the layer's scope keeps a session that ran", async () => {
    const root = project({ "a.txt": "a\n" })
    const runtime = ManagedRuntime.make(AgentSession.layer(options(root)))
    const session = await runtime.runPromise(AgentSession)
    expect(session).toMatchObject({ root, resumed: false, engine: "native" })
    expect(session.profile.name).toBe("code")
    expect(session.tools.map((t) => t.name)).toContain("read")
    const result = await session.runTurn("say hello", {})
    expect(result.status).toBe("success")
    expect(result.answer).toBe("Hello from the replay.")
    expect(existsSync(session.file)).toBe(true)
    await runtime.dispose()
    expect(existsSync(session.file)).toBe(true)
  })

  test("a session that never ran a turn is removed when the layer ends", async () => {
    const root = project()
    const runtime = ManagedRuntime.make(AgentSession.layer(options(root)))
    const session = await runtime.runPromise(AgentSession)
    expect(existsSync(session.file)).toBe(true)
    await runtime.dispose()
    expect(existsSync(session.file)).toBe(false)
  })

  test("a problem with how it was asked to start fails the layer with an AgentSetupError", async () => {
    const root = project()
    for (const bad of [{ profile: "nope" }, { engine: "warp" }, { sessionId: "no-such-session" }]) {
      const runtime = ManagedRuntime.make(AgentSession.layer(options(root, bad)))
      const failure = await runtime.runPromise(AgentSession).then(
        () => undefined,
        (e: unknown) => e,
      )
      await runtime.dispose()
      expect(failure).toBeInstanceOf(AgentSetupError)
    }
  })
})
