import { describe, expect, test } from "bun:test"
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { standInLedger } from "../../src/sandbox/stand-in-ledger.ts"
import { callTool, project as projectTree, tempDir } from "../support/harness.ts"
import { standInDir } from "../../src/workspace/stand-in-records.ts"

const deadPid = (): number => {
  const proc = Bun.spawnSync(["true"])
  return proc.pid
}

const records = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".json"))

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
    expect(records(dir)).toEqual([])
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
      const held = ledger.hold(() => ({ standIns: [{ path: join(project, ".agents"), kind: "dir" as const }], readOnly: [] }))
      expect(existsSync(join(project, ".agents"))).toBe(true)
      expect(records(dir).filter((n) => n.startsWith(`${process.pid}-`))).toHaveLength(1)
      held.release()
      expect(existsSync(join(project, ".agents"))).toBe(false)
      expect(records(dir)).toEqual([`${sleeper.pid}-1.json`])
    } finally {
      sleeper.kill()
    }
  })

  test("commands running at once share a stand-in: only the last one to end takes it away (another's bubblewrap still needs it)", () => {
    const project = tempDir()
    const dir = join(tempDir(), "ledger")
    const claude = { path: join(project, ".claude"), kind: "dir" as const }
    const first = standInLedger(dir).hold(() => ({ standIns: [claude], readOnly: [] }))
    expect(existsSync(claude.path)).toBe(true)
    // A second command (another anvil sees the stand-in as an existing protected folder) shares it.
    const second = standInLedger(dir).hold(() => ({ standIns: [], readOnly: [claude.path] }))
    first.release()
    expect(existsSync(claude.path)).toBe(true)
    // A third one that still found it missing when it looked also shares it instead of owning a copy.
    const third = standInLedger(dir).hold(() => ({ standIns: [claude], readOnly: [] }))
    second.release()
    expect(existsSync(claude.path)).toBe(true)
    third.release()
    expect(existsSync(claude.path)).toBe(false)
    expect(records(dir)).toEqual([])
  })

  test("any tool call sweeps them first, not only the next confined command: a read, then the tree holds no empty anvil.json for git_add to stage", async () => {
    const root = projectTree({ "x.txt": "x\n" })
    const env = { HOME: tempDir(), XDG_STATE_HOME: tempDir() }
    const dir = standInDir(root, env)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(root, "anvil.json"), "")
    writeFileSync(join(dir, `${deadPid()}-1.json`), JSON.stringify([{ path: join(root, "anvil.json"), kind: "file" }]))
    const { envelope } = await callTool(root, "read", { path: "x.txt" }, { env })
    expect(envelope.status).toBe("success")
    expect(existsSync(join(root, "anvil.json"))).toBe(false)
    expect(records(dir)).toEqual([])
  })
})
