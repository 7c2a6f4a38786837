import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readInstructionFile } from "../../src/agent/instruction-files.ts"
import type { FakeServer } from "../support/fake-model.ts"
import { fakeOpenAI } from "../support/fake-openai.ts"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, runBinary } from "../sandbox/binary.ts"

// AGENTS.md and CLAUDE.md go into every system prompt: a cloned repository must not point them at the user's files.
setDefaultTimeout(60_000)

const servers: Array<FakeServer> = []
afterAll(() => servers.forEach((s) => s.stop()))

describe("project instruction files", () => {
  test("a link out of the project is followed only to another folder's AGENTS.md or CLAUDE.md; only regular files, the head of a huge one", () => {
    const root = tempDir("anvil-instr-")
    const outside = tempDir("anvil-instr-out-")
    writeFileSync(join(outside, "id_rsa"), "-----BEGIN PRIVATE KEY-----\n")
    mkdirSync(join(outside, "shared"))
    writeFileSync(join(outside, "shared", "AGENTS.md"), "Shared rules.\n")
    writeFileSync(join(root, "AGENTS.md"), "Own rules.\n")
    expect(readInstructionFile(root, "AGENTS.md")).toBe("Own rules.\n")
    expect(readInstructionFile(root, "missing.md")).toBe("")

    symlinkSync(join(outside, "id_rsa"), join(root, "CLAUDE.md"))
    expect(readInstructionFile(root, "CLAUDE.md")).toBe("")
    mkdirSync(join(root, ".claude"))
    symlinkSync(join(outside, "shared", "AGENTS.md"), join(root, ".claude", "CLAUDE.md"))
    expect(readInstructionFile(root, ".claude/CLAUDE.md")).toBe("Shared rules.\n")

    // A FIFO inside the project would block the start; /dev/zero would never end.
    const fifo = tempDir("anvil-instr-fifo-")
    expect(Bun.spawnSync(["mkfifo", join(fifo, "AGENTS.md")]).exitCode).toBe(0)
    expect(readInstructionFile(fifo, "AGENTS.md")).toBe("")
    const zero = tempDir("anvil-instr-zero-")
    symlinkSync("/dev/zero", join(zero, "AGENTS.md"))
    expect(readInstructionFile(zero, "AGENTS.md")).toBe("")
    const big = tempDir("anvil-instr-big-")
    writeFileSync(join(big, "AGENTS.md"), "x".repeat(2 * 1024 * 1024))
    expect(readInstructionFile(big, "AGENTS.md").length).toBe(256 * 1024)
  })

  test("through the binary: a CLAUDE.md linked to a secret outside the project never reaches the model", async () => {
    const binary = await anvilBinary()
    const root = tempDir("anvil-instr-run-")
    const home = tempDir("anvil-instr-home-")
    writeFileSync(join(home, "credentials"), "aws_secret_access_key = SECRET-123\n")
    writeFileSync(join(root, "AGENTS.md"), "Use tabs.\n")
    symlinkSync(join(home, "credentials"), join(root, "CLAUDE.md"))
    const server = fakeOpenAI([{ text: "ok" }])
    servers.push(server)
    const r = await runBinary(binary, ["run", "hello"], root, { HOME: home, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "k", ANVIL_MODEL: "openai/gpt-test" })
    expect(r.code).toBe(0)
    const system = JSON.stringify(server.requests[0]!.body.messages[0])
    expect(system).toContain("Use tabs.")
    expect(system).not.toContain("SECRET-123")
  })
})
