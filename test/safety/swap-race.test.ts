import { describe, expect, test } from "bun:test"
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { session, tempDir } from "../support/harness.ts"
import { seeded } from "./seeded.ts"

/**
 * Swap races: a separate process swaps a folder inside the root for
 * a link to a folder outside, and back, in a tight loop, while the tools run
 * on paths under it hundreds of times. Whatever each call answers, the folder
 * outside must stay byte-identical with no file added, and no answer may show
 * its content.
 */

const CANARY = "CANARY-OUTSIDE do not touch\nsecret-77231\n"
/** Only in the canary: an answer holding it showed content from outside. */
const LEAK = "secret-77231"

const SWAPPER = `
const { renameSync, symlinkSync, unlinkSync } = require("node:fs")
const [dir, saved, outside] = process.argv.slice(2)
const link = dir + ".link"
for (;;) {
  try { symlinkSync(outside, link) } catch {}
  try { renameSync(dir, saved); renameSync(link, dir); renameSync(dir, link); renameSync(saved, dir) } catch {}
}
`

const listAll = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of readdirSync(dir).sort()) {
    const st = lstatSync(join(dir, name))
    out[name] = st.isFile() ? readFileSync(join(dir, name), "utf8") : "other"
  }
  return out
}

describe("swap races", () => {
  test("a folder swapped for a link out while tools run: the canary outside never changes", async () => {
    const root = tempDir("anvil-swap-")
    writeFileSync(join(root, "anvil.json"), "{}\n")
    mkdirSync(join(root, "work"))
    writeFileSync(join(root, "work", "f.txt"), "inside text\n")
    const outside = tempDir("anvil-swap-outside-")
    writeFileSync(join(outside, "f.txt"), CANARY)
    const before = listAll(outside)
    const script = join(tempDir("anvil-swapper-"), "swap.cjs")
    writeFileSync(script, SWAPPER)
    const swapper = Bun.spawn([process.execPath, script, join(root, "work"), join(root, "work.saved"), outside], { stdout: "ignore", stderr: "ignore" })
    const s = session(root, { env: { XDG_CACHE_HOME: tempDir("anvil-cache-") } })
    const random = seeded(42)
    const calls: Array<[string, unknown]> = [
      ["write", { path: "work/f.txt", content: "written\n" }],
      ["write", { path: "work/new.txt", content: "new\n" }],
      ["edit", { path: "work/f.txt", old_string: "text", new_string: "TEXT" }],
      ["edit", { path: "work/f.txt", old_string: "CANARY", new_string: "pwned" }],
      ["multiedit", { path: "work/f.txt", edits: [{ old_string: "CANARY-OUTSIDE", new_string: "pwned" }] }],
      ["patch", { patch: "*** Begin Patch\n*** Update File: work/f.txt\n@@\n-CANARY-OUTSIDE do not touch\n+pwned\n*** End Patch\n" }],
      ["patch", { patch: "*** Begin Patch\n*** Add File: work/added.txt\n+added\n*** End Patch\n" }],
      ["read", { path: "work/f.txt" }],
      ["list", { path: "work" }],
      ["glob", { pattern: "**/*", path: "work" }],
      ["grep", { pattern: "secret-\\d+", path: "work" }],
      ["grep", { pattern: "secret-\\d+" }],
      ["grep", { pattern: "secret-\\d+", path: "work/f.txt" }],
      ["bash", { command: "touch made-by-bash", workdir: "work" }],
    ]
    try {
      await Bun.sleep(50)
      let shownCanary = 0
      const answers = { refused: 0, done: 0 }
      for (let i = 0; i < 300; i++) {
        const [name, params] = calls[Math.floor(random() * calls.length)]!
        const { envelope } = await s.call(name, params)
        if (JSON.stringify(envelope).includes(LEAK)) shownCanary++
        if (envelope.status === "error" && ["ACCESS_DENIED", "NOT_FOUND", "CONFLICT"].includes(envelope.error!.code)) answers.refused++
        else if (envelope.status !== "error") answers.done++
      }
      expect(shownCanary).toBe(0)
      // The race was real: some calls met the link (or the gap between swaps), some the folder.
      expect(answers.refused).toBeGreaterThan(0)
      expect(answers.done).toBeGreaterThan(0)
    } finally {
      swapper.kill(9)
      await swapper.exited
    }
    expect(listAll(outside)).toEqual(before)
  }, 60_000)

  test("a file swapped for a FIFO while tools run: every call answers (the read after a write, the built-in grep's large files)", async () => {
    const root = tempDir("anvil-fifo-swap-")
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ tools: { grep: { engine: "builtin" } } }))
    // Over the built-in search's block size, so it is read in pieces (its own path), and a language's file for the LSP check.
    const big = "needle line\n".repeat(40_000)
    writeFileSync(join(root, "f.py"), big)
    expect(Bun.spawnSync(["mkfifo", join(root, "fifo.saved")]).exitCode).toBe(0)
    const script = join(tempDir("anvil-fifo-swapper-"), "swap.cjs")
    writeFileSync(script, FIFO_SWAPPER)
    const swapper = Bun.spawn([process.execPath, script, join(root, "f.py"), join(root, "file.saved"), join(root, "fifo.saved")], { stdout: "ignore", stderr: "ignore" })
    const s = session(root, { env: { XDG_CACHE_HOME: tempDir("anvil-cache-") } })
    const calls: Array<[string, unknown]> = [
      ["write", { path: "f.py", content: big }],
      ["edit", { path: "f.py", old_string: "needle line\nneedle line\n", new_string: "needle line\nneedle line\n", replace_all: false }],
      ["grep", { pattern: "needle", path: "f.py" }],
      ["grep", { pattern: "needle" }],
      ["read", { path: "f.py", limit: 2 }],
    ]
    try {
      await Bun.sleep(50)
      for (let i = 0; i < 100; i++) {
        const [name, params] = calls[i % calls.length]!
        const answered = await Promise.race([s.call(name, params).then(() => true), Bun.sleep(10_000).then(() => false)])
        expect({ call: name, answered }).toEqual({ call: name, answered: true })
      }
    } finally {
      swapper.kill(9)
      await swapper.exited
    }
  }, 120_000)
})

/** Swaps `file` with a FIFO and back by renames (the same two inodes), in a tight loop. */
const FIFO_SWAPPER = `
const { renameSync } = require("node:fs")
const [file, saved, fifo] = process.argv.slice(2)
for (;;) {
  try { renameSync(file, saved); renameSync(fifo, file); renameSync(file, fifo); renameSync(saved, file) } catch {}
}
`
