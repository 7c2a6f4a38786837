import { mkdtempSync, realpathSync } from "node:fs"
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

/**
 * Removes every folder tempDir made so far, in a detached `rm` that outlives the run: removed in the
 * test process, the suite's folders (built binaries, large repositories) took 60–100 s on a loaded
 * 2-core machine, past the hook's time-out, and failed a suite whose every test had passed.
 */
export const removeTempDirs = (): void => {
  const dirs = made.splice(0)
  if (dirs.length === 0) return
  Bun.spawn(["rm", "-rf", "--", ...dirs], { stdin: "ignore", stdout: "ignore", stderr: "ignore", detached: true }).unref()
}
