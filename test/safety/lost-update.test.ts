import { beforeAll, describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { anvilBinary } from "./binary.ts"

/**
 * Two anvil processes doing read-modify-write on one file: each
 * reads it, appends its own line and writes with expected_sha256. A write
 * either lands on top of the other's or is refused with CONFLICT; every line
 * a writer was told it wrote is in the file at the end.
 */

let binary = ""
beforeAll(async () => {
  binary = await anvilBinary()
}, 60_000)

const sha = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex")

describe("two processes racing read-modify-write", () => {
  for (const tool of ["write", "edit"] as const) {
    test(`${tool} with expected_sha256: no silent lost update`, async () => {
      const root = tempDir("anvil-race-")
      writeFileSync(join(root, "anvil.json"), "{}\n")
      const file = join(root, "shared.txt")
      writeFileSync(file, "start\n")
      const env = { PATH: "/usr/bin:/bin", HOME: root, XDG_CACHE_HOME: join(root, ".cache-x") }
      const ROUNDS = 12
      const worker = async (id: string) => {
        const landed: Array<string> = []
        let conflicts = 0
        for (let attempt = 0; landed.length < ROUNDS && attempt < ROUNDS * 6; attempt++) {
          const before = readFileSync(file, "utf8")
          const line = `${id}-${landed.length}`
          const params =
            tool === "write"
              ? { path: "shared.txt", content: `${before}${line}\n`, expected_sha256: sha(before) }
              : { path: "shared.txt", old_string: before, new_string: `${before}${line}\n`, expected_sha256: sha(before) }
          const proc = Bun.spawn([binary, "tool", tool, JSON.stringify(params)], { cwd: root, env, stdout: "pipe", stderr: "pipe" })
          const [out] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
          const envelope = JSON.parse(out)
          if (envelope.status === "success") landed.push(line)
          else {
            expect(envelope.error.code).toBe("CONFLICT")
            conflicts++
          }
        }
        return { landed, conflicts }
      }
      const results = await Promise.all([worker("p1"), worker("p2")])
      const final = readFileSync(file, "utf8").split("\n")
      for (const r of results) for (const line of r.landed) expect(final).toContain(line)
      expect(final.filter((l) => /^p[12]-\d+$/.test(l)).length).toBe(results[0]!.landed.length + results[1]!.landed.length)
    }, 120_000)
  }
})
