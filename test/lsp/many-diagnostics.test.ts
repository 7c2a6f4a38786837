import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { runAnvil } from "../support/anvil-cli.ts"
import { project } from "../support/harness.ts"
import { fullPath, requireServers } from "./support.ts"

// A file with thousands of diagnostics: the answer lists the first 200, errors first, and keeps its freshness and
// counts (before, the output limit cut the whole answer and its data held only the truncation notice).
setDefaultTimeout(90_000)

describe("lsp_diagnostics on a file with very many diagnostics", () => {
  test("200 listed, errors first, the rest counted; freshness and counts kept", async () => {
    requireServers()
    const warnings = Array.from({ length: 50 }, (_, i) => `import os as unused_${i}`).join("\n")
    const errors = Array.from({ length: 2500 }, (_, i) => `x${i} = undefined_${i}`).join("\n")
    const root = project({ "m.py": `${warnings}\n${errors}\n` })
    const r = await runAnvil(["tool", "lsp_diagnostics", JSON.stringify({ path: "m.py" })], { cwd: root, env: { PATH: fullPath() } })
    const envelope = JSON.parse(r.stdout)
    expect(envelope.data).toMatchObject({ server: "pylsp", freshness: "current", clean: false, omitted: 2550 - 200 })
    expect(envelope.data.counts.error).toBe(2500)
    expect(envelope.data.diagnostics.length).toBe(200)
    expect(envelope.data.diagnostics.every((d: { severity: string }) => d.severity === "error")).toBe(true)
    expect(envelope.text).toContain("… and 2350 more")
  })
})
