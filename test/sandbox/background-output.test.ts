import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, requireBwrap, runBinary } from "./binary.ts"

// What a command leaves in the background is treated alike confined and not: its output is waited for (drain_ms),
// and when it is still held after that the answer says it was cut, never losing it without a word.
setDefaultTimeout(60_000)

describe("output of background processes, confined and unconfined alike", () => {
  let binary = ""
  beforeAll(async () => {
    requireBwrap()
    binary = await anvilBinary()
  }, 120_000)

  const bash = async (mode: string, command: string) => {
    const root = tempDir("anvil-bg-")
    const ran = await runBinary(binary, ["tool", "bash", JSON.stringify({ command }), "--sandbox", mode], root, { HOME: tempDir("anvil-home-") })
    return JSON.parse(ran.out)
  }

  for (const mode of ["workspace-write", "off"]) {
    test(`${mode}: output written soon after the command exits is kept; held longer it is cut, and the answer says so`, async () => {
      const soon = await bash(mode, "(sleep 0.2; echo late) & echo early")
      expect(soon.status).toBe("success")
      expect(soon.data).toMatchObject({ stdout: "early\nlate", exit_code: 0, sandbox: { mode } })
      const held = await bash(mode, "(sleep 30; echo late) & echo early >&2; exit 7")
      expect(held.status).toBe("partial")
      expect(held.data).toMatchObject({ stdout: "", stderr: "early", exit_code: 7, timed_out: false })
      expect(held.text).toContain("processes it left in the background kept its output open; they were ended and cut off")
    })

    test(`${mode}: a command killed by a signal reads as such, with nothing added to its output`, async () => {
      const killed = await bash(mode, "echo before; kill -9 $$")
      expect(killed.data).toMatchObject({ stdout: "before", stderr: "", exit_code: 137, signal: "SIGKILL" })
    })
  }
})
