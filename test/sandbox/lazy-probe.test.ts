import { describe, expect, test } from "bun:test"
import { chmodSync, existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeSandbox } from "../../src/sandbox/sandbox.ts"
import { readSandboxSettings } from "../../src/sandbox/settings.ts"
import { tempDir } from "../support/harness.ts"

describe("sandbox probe", () => {
  test("bubblewrap is probed when the status is first read, not when the session's sandbox is made", async () => {
    // A stand-in bwrap that notes each start and fails, so the probe reports the sandbox unavailable.
    const bin = tempDir()
    const note = join(bin, "started")
    writeFileSync(join(bin, "bwrap"), `#!/bin/sh\necho x >> "${note}"\necho "no namespaces here" >&2\nexit 1\n`)
    chmodSync(join(bin, "bwrap"), 0o755)
    const { service, close } = makeSandbox({
      root: tempDir(),
      env: { PATH: `${bin}:/usr/bin:/bin` },
      settings: readSandboxSettings({ mode: "workspace-write" }),
      sessionId: "lazy-probe",
    })
    try {
      expect(existsSync(note)).toBe(false)
      expect(service.status.confining).toBe(false)
      expect(existsSync(note)).toBe(true)
      expect(service.status.support.available).toBe(false)
      expect(service.status.warning).toContain("no namespaces here")
      expect(service.policy()).toBeUndefined()
    } finally {
      await close()
    }
  })
})
