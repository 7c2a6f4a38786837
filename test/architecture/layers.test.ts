import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { checkLayers, FLOORS, floorOf, importsOf, readTree } from "./layers.ts"

const SRC = join(import.meta.dir, "..", "..", "src")

const fixture = (files: Record<string, string>) => checkLayers(new Map(Object.entries(files)))

describe("layers (fixtures)", () => {
  test("an import running up a floor is reported, naming both files and floors", () => {
    const findings = fixture({
      "agent/loop.ts": "export type Turn = {}\n",
      "tools/read.ts": 'import { Workspace } from "../workspace/workspace.ts"\nimport type { Turn } from "../agent/loop.ts"\n',
      "workspace/workspace.ts": 'export const x = await import("../edit/apply.ts")\n',
      "edit/apply.ts": "export {}\n",
    })
    expect(findings.map((f) => f.text)).toEqual([
      "tools/read.ts (tools) imports agent/loop.ts (agent), a floor above it",
      "workspace/workspace.ts (base) imports edit/apply.ts (domains), a floor above it",
    ])
  })

  test("an import cycle is reported, even within one floor", () => {
    const findings = fixture({
      "git/a.ts": 'import { b } from "./b.ts"\n',
      "git/b.ts": 'export { c } from "../search/c.ts"\n',
      "search/c.ts": 'import "../git/a.ts"\n',
      "search/d.ts": 'import { c } from "./c.ts"\n',
    })
    expect(findings).toEqual([{ kind: "cycle", files: ["git/a.ts", "git/b.ts", "search/c.ts"], text: "import cycle: git/a.ts → git/b.ts → search/c.ts → git/a.ts" }])
  })

  test("ToolError below the tool framework is reported; the framework and tools may use it", () => {
    const findings = fixture({
      "protocol/tool-error.ts": "export class ToolError {}\n",
      "git/status.ts": 'import { toolError } from "../protocol/tool-error.ts"\n',
      "tool-framework/runner.ts": 'import { toolError } from "../protocol/tool-error.ts"\n',
      "tools/git_status.ts": 'import type { ToolError } from "../protocol/tool-error.ts"\n',
    })
    expect(findings.map((f) => [f.kind, f.text])).toEqual([
      ["tool-error", "git/status.ts (domains) imports ToolError: raise a tagged error and translate it at the tool boundary"],
    ])
  })

  test("a top-level folder on no floor is reported once", () => {
    const findings = fixture({ "utils/a.ts": "export {}\n", "utils/b.ts": "export {}\n" })
    expect(findings.map((f) => f.text)).toEqual(["src/utils is on no floor: add it to FLOORS and ARCHITECTURE.md"])
  })
})

describe("layers (src)", () => {
  const findings = checkLayers(readTree(SRC))

  test("no upward import, no cycle, no unknown folder", () => {
    expect(findings.filter((f) => f.kind !== "tool-error").map((f) => f.text)).toEqual([])
  })

  test("ToolError is imported only from the tool framework up: no domain or base file imports it", () => {
    expect(findings.filter((f) => f.kind === "tool-error").map((f) => f.text)).toEqual([])
  })

  test("domains and base folders name their failures in their own terms: none imports the envelope's error codes", () => {
    const below = FLOORS.findIndex((f) => f.name === "tool-framework")
    const speaking = [...readTree(SRC)]
      .filter(([file, text]) => floorOf(file) > below && floorOf(file) < FLOORS.length - 1 && importsOf(file, text).includes("protocol/error-code.ts"))
      .map(([file]) => file)
    expect(speaking).toEqual([])
  })

  test("errors are tagged: no class extends Error", () => {
    const plain = [...readTree(SRC)].filter(([, text]) => /class\s+\w+\s+extends\s+(?:Error|TypeError|SyntaxError|RangeError)\b/.test(text)).map(([file]) => file)
    expect(plain).toEqual([])
  })

  test("one isRecord (protocol/is-record.ts)", () => {
    const copies = [...readTree(SRC)].filter(([, text]) => /(?:const|function)\s+isRecord\b/.test(text)).map(([file]) => file)
    expect(copies).toEqual(["protocol/is-record.ts"])
  })

  test("ARCHITECTURE.md names every folder of the floor table", () => {
    const doc = readFileSync(join(SRC, "..", "ARCHITECTURE.md"), "utf8")
    for (const floor of FLOORS) for (const entry of floor.entries) expect(doc).toContain(`\`${entry.endsWith(".ts") ? entry : `${entry}/`}\``)
    // Folders other engineers create later already have their floor.
    for (const planned of ["plugins", "mcp", "lsp", "trust", "sandbox", "host"]) expect(FLOORS.some((f) => f.entries.includes(planned))).toBe(true)
    expect(existsSync(SRC)).toBe(true)
  })
})
