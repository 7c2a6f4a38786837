import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const made: Array<string> = []

/**
 * A fresh temp folder (real path), removed when the whole test run ends
 * (test/support/preload.ts). A module's own afterAll would belong to the first
 * test file importing it, and bun test fires no process "exit": folders made
 * by later files, the built binaries among them, would stay behind.
 */
export const tempDir = (prefix = "anvil-test-"): string => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  made.push(dir)
  return dir
}

/** Removes every folder tempDir made so far. */
export const removeTempDirs = (): void => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}
