import { describe, expect, test } from "bun:test"
import type { CliIO } from "../../src/cli/output.ts"
import { toolCommand } from "../../src/cli/tool-command.ts"
import { bigintTool } from "../support/fixture-tools.ts"
import { project } from "../support/harness.ts"

describe("anvil tool: every call ends in an envelope", () => {
  test("a result JSON cannot hold (a BigInt) is that call's INTERNAL_ERROR envelope, not a crash of the command", async () => {
    const root = project()
    for (const meta of [false, true]) {
      let out = ""
      const io: CliIO = { out: (t) => void (out += t), err: () => undefined, readStdin: async () => "", cwd: root, env: {} }
      const code = await toolCommand({ name: "bigint_data", params: {}, text: false, meta }, [bigintTool], io, root)
      expect(code).toBe(1)
      const envelope = JSON.parse(out)
      expect(envelope.status).toBe("error")
      expect(envelope.error.code).toBe("INTERNAL_ERROR")
      expect(envelope.error.message).toContain("BigInt")
    }
  })
})
