import { describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { standInLedger } from "../../src/sandbox/stand-in-ledger.ts"
import { tempDir } from "../support/harness.ts"

const deadPid = (): number => {
  const proc = Bun.spawnSync(["true"])
  return proc.pid
}

describe("stand-ins a killed anvil left behind", () => {
  test("a dead process's record: its empty stand-ins are removed, a filled one is kept, the record goes", () => {
    const project = tempDir()
    const dir = join(tempDir(), "ledger")
    mkdirSync(dir)
    writeFileSync(join(project, "anvil.json"), "")
    mkdirSync(join(project, ".claude"))
    writeFileSync(join(project, ".mcp.json"), "{}\n") // written by someone since
    const standIns = [
      { path: join(project, "anvil.json"), kind: "file" },
      { path: join(project, ".claude"), kind: "dir" },
      { path: join(project, ".mcp.json"), kind: "file" },
    ]
    writeFileSync(join(dir, `${deadPid()}-1.json`), JSON.stringify(standIns))
    standInLedger(dir)
    expect(existsSync(join(project, "anvil.json"))).toBe(false)
    expect(existsSync(join(project, ".claude"))).toBe(false)
    expect(existsSync(join(project, ".mcp.json"))).toBe(true)
    expect(readdirSync(dir)).toEqual([])
  })

  test("a running process's record is left alone; this process's own record is forgotten once its stand-ins are removed", () => {
    const project = tempDir()
    const dir = join(tempDir(), "ledger")
    mkdirSync(dir)
    const sleeper = Bun.spawn(["sleep", "30"])
    try {
      writeFileSync(join(project, "anvil.json"), "")
      writeFileSync(join(dir, `${sleeper.pid}-1.json`), JSON.stringify([{ path: join(project, "anvil.json"), kind: "file" }]))
      const ledger = standInLedger(dir)
      expect(existsSync(join(project, "anvil.json"))).toBe(true)
      const forget = ledger.record([{ path: join(project, ".agents"), kind: "dir" }])
      expect(readdirSync(dir).sort()).toEqual([`${process.pid}-1.json`, `${sleeper.pid}-1.json`].sort())
      forget()
      expect(readdirSync(dir)).toEqual([`${sleeper.pid}-1.json`])
    } finally {
      sleeper.kill()
    }
  })
})
