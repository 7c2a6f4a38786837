import { describe, expect, test, setDefaultTimeout } from "bun:test"
import { execFileSync } from "node:child_process"
import * as nodeFs from "node:fs"
import { join } from "node:path"
import { objectStore } from "../../src/git/object-store.ts"
import { git, gitHome, lines } from "../support/git-repo.ts"
import { tempDir } from "../support/harness.ts"

setDefaultTimeout(60_000)

const home = gitHome()

describe("the built-in object reader", () => {
  for (const format of ["sha1", "sha256"] as const) {
    test(`reads every object of a ${format} repository, loose and packed, offset and reference deltas, as git cat-file does`, () => {
      const root = tempDir("anvil-objects-")
      git(root, home, ["init", "-q", "-b", "main", `--object-format=${format}`])
      for (let i = 0; i < 15; i++) {
        nodeFs.writeFileSync(join(root, "f.txt"), lines(`line ${i % 4}`, 400 + i * 3))
        nodeFs.writeFileSync(join(root, `g${i % 3}.txt`), lines(`g ${i}`, 50))
        git(root, home, ["add", "-A"])
        git(root, home, ["commit", "-q", "-m", `c${i}`])
        // Deltas by offset (git's default) in one format, by base id (repack.useDeltaBaseOffset off) in the other.
        if (i === 9) git(root, home, ["-c", `repack.useDeltaBaseOffset=${format === "sha1"}`, "repack", "-q", "-a", "-d", "-f"])
      }
      const listing = git(root, home, ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(deltabase)"]).trim().split("\n")
      const zero = format === "sha1" ? "0".repeat(40) : "0".repeat(64)
      expect(listing.some((l) => !l.endsWith(zero))).toBe(true)
      const store = objectStore(nodeFs, [join(root, ".git", "objects")], format === "sha1" ? 20 : 32)
      for (const line of listing) {
        const [oid, type] = line.split(" ") as [string, string]
        const object = store.read(oid)
        expect(object.type).toBe(type as typeof object.type)
        const expected = execFileSync("git", ["cat-file", type, oid], { cwd: root, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home } })
        expect(Buffer.from(object.content).equals(expected)).toBe(true)
      }
      store.close()
      expect(() => store.read(zero.replace(/^0/, "1"))).toThrow("Could not find")
      nodeFs.rmSync(root, { recursive: true, force: true })
    })
  }
})
