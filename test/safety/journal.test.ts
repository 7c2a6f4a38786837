import { describe, expect, test } from "bun:test"
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Journal, recoverJournals, tempNameFor } from "../../src/workspace/journal.ts"
import { tempDir } from "../support/harness.ts"

/**
 * The journal trusts nothing it reads: a planted or forged journal
 * must not make the next start touch a file outside the root, or a file that
 * is not the very one the change wrote; a journal a live process holds is
 * left alone.
 */

const setup = () => {
  const root = realpathSync(tempDir("anvil-journal-"))
  const dir = join(root, ".anvil", "journal")
  mkdirSync(dir, { recursive: true })
  const contains = (p: string) => p === root || p.startsWith(`${root}/`)
  return { root, dir, contains }
}
const ino = (p: string) => String(lstatSync(p, { bigint: true }).ino)
const plant = (dir: string, doc: unknown, name = "4242-forged.json") => writeFileSync(join(dir, name), JSON.stringify(doc))

describe("journal recovery", () => {
  test("a forged journal naming a folder outside the root touches nothing there", () => {
    const { root, dir, contains } = setup()
    const outside = realpathSync(tempDir("anvil-journal-outside-"))
    writeFileSync(join(outside, "victim.txt"), "precious\n")
    const backup = tempNameFor("victim.txt")
    writeFileSync(join(outside, backup), "attacker content\n")
    const victimIno = ino(join(outside, "victim.txt"))
    plant(dir, {
      version: 1,
      root,
      pid: 1,
      state: "ready",
      entries: [
        { dir: outside, name: "victim.txt", existed: false, temp: backup, tempIno: victimIno },
        { dir: outside, name: "victim.txt", existed: true, backup, backupIno: ino(join(outside, backup)), temp: tempNameFor("x"), tempIno: victimIno },
      ],
    })
    recoverJournals(dir, root, contains)
    expect(readFileSync(join(outside, "victim.txt"), "utf8")).toBe("precious\n")
    expect(readFileSync(join(outside, backup), "utf8")).toBe("attacker content\n")
    expect(readdirSync(dir)).toEqual([])
  })

  test("a forged journal inside the root leaves a file that is not the one it names (inode or content differ)", () => {
    const { root, dir, contains } = setup()
    writeFileSync(join(root, "a.txt"), "user's own\n")
    writeFileSync(join(root, "b.txt"), "user's b\n")
    const backup = tempNameFor("a.txt")
    writeFileSync(join(root, backup), "old\n")
    plant(dir, {
      version: 1,
      root,
      pid: 1,
      state: "ready",
      entries: [
        // Wrong inode: a.txt is not what the change wrote.
        { dir: root, name: "a.txt", existed: true, temp: tempNameFor("a.txt"), tempIno: "1", backup, backupIno: ino(join(root, backup)) },
        // Right inode but other content than the change wrote.
        { dir: root, name: "b.txt", existed: false, temp: tempNameFor("b.txt"), tempIno: ino(join(root, "b.txt")), newSha: "0".repeat(64) },
        // Not an anvil temp name: refused whole.
      ],
    })
    recoverJournals(dir, root, contains)
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("user's own\n")
    expect(readFileSync(join(root, "b.txt"), "utf8")).toBe("user's b\n")
    expect(existsSync(join(root, backup))).toBe(false)
  })

  test("entries whose names are not anvil temp names, or whose root is another, make the journal ignored", () => {
    const { root, dir, contains } = setup()
    writeFileSync(join(root, "keep.txt"), "keep\n")
    plant(dir, { version: 1, root, pid: 1, state: "staging", entries: [{ dir: root, name: "x", existed: true, temp: "keep.txt" }] }, "1-a.json")
    plant(dir, { version: 1, root: "/elsewhere", pid: 1, state: "staging", entries: [{ dir: root, name: "x", existed: true, temp: tempNameFor("keep.txt") }] }, "1-b.json")
    plant(dir, { version: 1, root, pid: 1, state: "ready", entries: [{ dir: root, name: "../x", existed: true }] }, "1-c.json")
    const r = recoverJournals(dir, root, contains)
    expect(r.ignored).toBe(3)
    expect(readFileSync(join(root, "keep.txt"), "utf8")).toBe("keep\n")
    expect(readdirSync(dir)).toEqual([])
  })

  test("an interrupted change is rolled back: the old content returns from its backup, created files go", () => {
    const { root, dir, contains } = setup()
    writeFileSync(join(root, "mod.txt"), "old\n")
    const backup = tempNameFor("mod.txt")
    linkSync(join(root, "mod.txt"), join(root, backup))
    const oldIno = ino(join(root, "mod.txt"))
    // The new contents as the change left them: renamed over mod.txt, linked in as made.txt.
    const tempMod = tempNameFor("mod.txt")
    writeFileSync(join(root, tempMod), "new\n")
    const newModIno = ino(join(root, tempMod))
    renameSync(join(root, tempMod), join(root, "mod.txt"))
    const tempMade = tempNameFor("made.txt")
    writeFileSync(join(root, tempMade), "made\n")
    linkSync(join(root, tempMade), join(root, "made.txt"))
    plant(dir, {
      version: 1,
      root,
      pid: 1,
      state: "ready",
      entries: [
        { dir: root, name: "mod.txt", existed: true, temp: tempMod, tempIno: newModIno, backup, backupIno: oldIno },
        { dir: root, name: "made.txt", existed: false, temp: tempMade, tempIno: ino(join(root, "made.txt")) },
      ],
    })
    const r = recoverJournals(dir, root, contains)
    expect(r.restored.length).toBe(2)
    expect(readFileSync(join(root, "mod.txt"), "utf8")).toBe("old\n")
    expect(existsSync(join(root, "made.txt"))).toBe(false)
    expect(readdirSync(root).filter((n) => n.includes(".anvil-tmp-"))).toEqual([])
  })

  test("a journal held by a live process is left alone", () => {
    const { root, dir, contains } = setup()
    const live = Journal.begin(dir, root, [])
    recoverJournals(dir, root, contains)
    expect(readdirSync(dir).filter((n) => n.endsWith(".json")).length).toBe(1)
    live.finish()
    expect(readdirSync(dir)).toEqual([])
  })
})
