import { afterAll, describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { Effect } from "effect"
import { hashContent, HashProblem, stampContent } from "../../src/trust/content-hash.ts"
import { makeTrust } from "../../src/trust/trust.ts"

const base = mkdtempSync(join(tmpdir(), "anvil-content-hash-"))
afterAll(() => rmSync(base, { recursive: true, force: true }))

const sha = (...parts: Array<string | Buffer>) => {
  const hash = createHash("sha256")
  for (const part of parts) hash.update(part)
  return `sha256:${hash.digest("hex")}`
}

/** Bytes that differ along the file, more than the pieces the hash reads at once. */
const bytes = (size: number) => {
  const out = Buffer.alloc(size)
  for (let i = 0; i < size; i++) out[i] = (i * 31 + (i >> 11)) & 0xff
  return out
}

describe("a trust subject's content hash", () => {
  test("a file larger than a piece is hashed whole, every byte counting, as the framing always was (a recorded trust still holds)", () => {
    const data = bytes(5 * 1024 * 1024 + 7)
    const file = join(base, "big.bin")
    writeFileSync(file, data)
    expect(hashContent({ path: file })).toBe(sha("file\0", data))

    const dir = join(base, "folder")
    mkdirSync(dir)
    writeFileSync(join(dir, "data.bin"), data)
    symlinkSync(file, join(dir, "link"))
    const size = String(data.length)
    expect(hashContent({ path: dir })).toBe(sha("dir\0", "data.bin\0", size, "\0", data, "\0", "link\0", "link\0", file, "\0", size, "\0", data, "\0"))

    // The last byte, pieces past the first: another hash, for the file and for the link to it.
    const before = hashContent({ path: dir })
    data[data.length - 1] = data[data.length - 1]! ^ 1
    writeFileSync(file, data)
    expect(hashContent({ path: file })).toBe(sha("file\0", data))
    expect(hashContent({ path: dir })).not.toBe(before)
  })

  test("a subject that is no regular file (a named pipe, a device) is refused rather than read forever", async () => {
    const fifo = join(base, "pipe.ts")
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0)
    for (const path of [fifo, "/dev/zero"]) {
      const thrown = (() => {
        try {
          return hashContent({ path })
        } catch (e) {
          return e
        }
      })()
      expect(thrown).toBeInstanceOf(HashProblem)
      expect((thrown as HashProblem).message).toBe(`${path} is not a regular file or a folder`)
    }
    const trust = makeTrust({ root: base, env: { XDG_CONFIG_HOME: join(base, "config"), HOME: join(base, "home") } })
    const error = await Effect.runPromise(Effect.flip(trust.check({ kind: "plugin", name: "pipe", content: { path: fifo } })))
    expect(error.reason).toBe("unreadable_content")
    expect(error.message).toContain("is not a regular file or a folder")
  })

  test("a folder's stamp is made of the lines it always was, so a stamp stored in trust.json still matches", () => {
    const dir = join(base, "stamped")
    mkdirSync(join(dir, "node_modules", "dep", "lib"), { recursive: true })
    mkdirSync(join(dir, ".git"))
    mkdirSync(join(base, "elsewhere"))
    writeFileSync(join(base, "elsewhere", "x.js"), "x")
    writeFileSync(join(dir, ".git", "HEAD"), "ref")
    writeFileSync(join(dir, "index.ts"), "export {}")
    writeFileSync(join(dir, "run.sh"), "echo")
    chmodSync(join(dir, "run.sh"), 0o755)
    writeFileSync(join(dir, "node_modules", "dep", "lib", "a.js"), "a")
    writeFileSync(join(dir, "B.js"), "b")
    // More lines than one piece of the hash's input holds (64 KiB).
    mkdirSync(join(dir, "node_modules", "many"))
    for (let i = 0; i < 1500; i++) writeFileSync(join(dir, "node_modules", "many", `m${i}.js`), "")
    symlinkSync(join(dir, "index.ts"), join(dir, "to-file"))
    symlinkSync(join(base, "elsewhere"), join(dir, "to-folder"))
    symlinkSync("..", join(dir, "node_modules", "up"))
    // The stamp as it was first written: Node's join and relative for each file, one hash update per file.
    const reference = (installed: boolean, withText?: string) => {
      const files: Array<string> = []
      const seen = new Set([realpathSync(dir)])
      const list = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
          if (e.name === ".git" || (!installed && e.name === "node_modules" && e.isDirectory())) continue
          const full = join(d, e.name)
          if (e.isDirectory()) list(full)
          else {
            files.push(full)
            const target = e.isSymbolicLink() ? statSync(full) : undefined
            if (target?.isDirectory() && !seen.has(realpathSync(full))) {
              seen.add(realpathSync(full))
              list(full)
            }
          }
        }
      }
      list(dir)
      const hash = createHash("sha256")
      for (const file of files) {
        const i = lstatSync(file)
        hash.update(`${relative(dir, file)}\0${i.size}\0${i.mode}\0${i.ino}\0${i.mtimeMs}\0${i.ctimeMs}\0`)
        if (i.isSymbolicLink()) {
          const t = statSync(file)
          hash.update(`->${t.size}\0${t.mode}\0${t.ino}\0${t.mtimeMs}\0${t.ctimeMs}\0`)
        }
      }
      if (withText !== undefined) hash.update("\0with\0").update(withText)
      return `stamp:${hash.digest("hex")}`
    }
    expect(stampContent({ path: dir })).toBe(reference(true))
    expect(stampContent({ path: `${dir}/` })).toBe(reference(true))
    expect(stampContent({ path: dir }, false)).toBe(reference(false))
    expect(stampContent({ path: dir, with: "{}" })).toBe(reference(true, "{}"))
    expect(reference(true)).not.toBe(reference(false))
  })
})
