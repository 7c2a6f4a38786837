import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DEFAULT_MAX_PROCESSES } from "../../src/sandbox/settings.ts"
import { bashTool } from "../../src/tools/bash.ts"

// main.ts starts work for `anvil tool bash` before it loads the rest (so the entry point stays small), with its
// own copies of bash's names and the default process limit: they must stay what the tool and the settings say.
const entry = readFileSync(join(import.meta.dir, "..", "..", "src", "main.ts"), "utf8")

test("main.ts's bash names are the bash tool's name and aliases", () => {
  const names = entry.match(/const BASH_NAMES = new Set\(\[([^\]]*)\]\)/)?.[1]
  expect(names).toBeDefined()
  expect(JSON.parse(`[${names}]`)).toEqual([bashTool.name, ...(bashTool.aliases ?? [])])
})

test("main.ts's default process limit is the sandbox settings' default", () => {
  expect(Number(entry.match(/const DEFAULT_MAX_PROCESSES = (\d+)/)?.[1])).toBe(DEFAULT_MAX_PROCESSES)
})
