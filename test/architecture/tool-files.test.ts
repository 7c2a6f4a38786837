import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { importsOf } from "./layers.ts"

const SRC = join(import.meta.dir, "..", "..", "src")

/**
 * Tools whose engines moved to a domain: each tool file keeps its parameters,
 * its prompt, the call of its domain and the rendering of the result. So it
 * does no I/O of its own: no Node built-in, no platform service, no module of
 * the base floor beyond settings, and the only services it asks for are the
 * configuration and the output budget.
 */
const TOOLS: Readonly<Record<string, ReadonlyArray<string>>> = {
  "tools/read.ts": ["files/"],
  "tools/list.ts": ["files/"],
  "tools/grep.ts": ["search/"],
  "tools/grep-result.ts": ["search/"],
  "tools/grep-settings.ts": ["search/"],
  "tools/fetch.ts": ["net/"],
  "tools/bash.ts": ["shell/"],
  "tools/glob.ts": ["search/"],
}

/** Where any of these tools may import from, besides its own domain. */
const SHARED = ["tools/", "tool-framework/", "protocol/", "config/", "output/output-settings.ts"]
const SERVICES = new Set(["Config", "OutputSettings"])
/** A tool file longer than this is growing an engine again. */
const MAX_LINES = 250

/** What a source file breaks of the rule: package imports, src imports outside its allowance, services it yields. */
const toolFileProblems = (file: string, text: string, domains: ReadonlyArray<string>): ReadonlyArray<string> => {
  const problems: Array<string> = []
  for (const m of text.matchAll(/(?:from|import)\s*["']([^"'.][^"']*)["']/g)) {
    if (m[1] !== "effect") problems.push(`${file} imports the package ${m[1]}`)
  }
  for (const target of importsOf(file, text)) {
    if (target.endsWith(".md")) continue
    if (![...SHARED, ...domains].some((allowed) => target.startsWith(allowed))) problems.push(`${file} imports ${target}`)
  }
  for (const m of text.matchAll(/yield\*\s+\(?\s*([A-Z]\w*)\b(?!\s*[.(])/g)) {
    if (!SERVICES.has(m[1]!)) problems.push(`${file} uses the service ${m[1]}`)
  }
  const lines = text.split("\n").length
  if (lines > MAX_LINES) problems.push(`${file} has ${lines} lines (at most ${MAX_LINES})`)
  return problems
}

describe("tool files hold no engine", () => {
  test("a fixture with engine code is caught: a Node import, a platform service, a workspace module, an unlisted service", () => {
    const text = [
      'import { Effect } from "effect"',
      'import { FileSystem } from "effect/FileSystem"',
      'import { spawn } from "node:child_process"',
      'import { Workspace } from "../workspace/workspace.ts"',
      'import { grep } from "../search/grep.ts"',
      'import { Config } from "../config/config.ts"',
      'import description from "./grep.md" with { type: "text" }',
      "const run = Effect.gen(function* () { const c = yield* Config; const ws = yield* Workspace; const r = yield* grep({}) })",
    ].join("\n")
    expect(toolFileProblems("tools/grep.ts", text, ["search/"])).toEqual([
      "tools/grep.ts imports the package effect/FileSystem",
      "tools/grep.ts imports the package node:child_process",
      "tools/grep.ts imports workspace/workspace.ts",
      "tools/grep.ts uses the service Workspace",
    ])
  })

  for (const [file, domains] of Object.entries(TOOLS)) {
    test(`${file}: parameters, prompt, the call of ${domains.join(", ")} and the result`, () => {
      expect(toolFileProblems(file, readFileSync(join(SRC, file), "utf8"), domains)).toEqual([])
    })
  }
})
