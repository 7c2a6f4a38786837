import { afterAll, describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { hashContent, HashProblem } from "../../src/trust/content-hash.ts"
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
})
