import { describe, expect, test } from "bun:test"
import { execFileSync } from "node:child_process"
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { readSettingsFile } from "../../src/config/settings-file.ts"
import { standardSources } from "../../src/mcp/server-sources.ts"
import { saveAllowRules } from "../../src/permission/permissions.ts"
import { saveNetworkHost } from "../../src/sandbox/save-host.ts"
import { tempDir } from "../support/harness.ts"

const fifo = (dir: string, name: string) => {
  const file = join(dir, name)
  execFileSync("mkfifo", [file])
  return file
}

const platform = Layer.merge(NodeFileSystem.layer, NodePath.layer)

describe("settings files are read only when they are regular files", () => {
  test("missing, text (a byte order mark dropped), a folder and a FIFO: each told apart, none blocks", () => {
    const dir = tempDir()
    expect(readSettingsFile(join(dir, "none.json"))).toEqual({ kind: "missing" })
    writeFileSync(join(dir, "a.json"), "\uFEFF{\"x\": 1}\n")
    expect(readSettingsFile(join(dir, "a.json"))).toEqual({ kind: "text", text: "{\"x\": 1}\n" })
    mkdirSync(join(dir, "folder.json"))
    expect(readSettingsFile(join(dir, "folder.json"))).toEqual({ kind: "unreadable", reason: "it is a folder" })
    // A FIFO with no writer would block a plain open for ever.
    expect(readSettingsFile(fifo(dir, "pipe.json"))).toEqual({ kind: "unreadable", reason: "it is not a regular file" })
  })

  test("MCP server sources: a FIFO planted as .mcp.json is a reported problem, the other sources still load", () => {
    const root = tempDir()
    fifo(root, ".mcp.json")
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ mcpServers: { one: { command: "true" } } }))
    const { sources, problems } = standardSources(root, { HOME: tempDir() })
    expect(problems).toEqual([
      { source: join(root, ".mcp.json"), message: "cannot be read as a settings file (it is not a regular file): replace it with a regular JSON file, or remove it." },
    ])
    expect(sources.map((s) => Object.keys(s.servers))).toEqual([["one"]])
  })

  test("saving a network host or an allow rule leaves an anvil.json it cannot read alone, and fails", async () => {
    const root = tempDir()
    const file = fifo(root, "anvil.json")
    await expect(saveNetworkHost(root, "example.org")).rejects.toThrow("was not changed: it is not a regular file")
    const saved = await Effect.runPromise(saveAllowRules(root, [{ tool: "bash" }]).pipe(Effect.provide(platform), Effect.result))
    expect(saved._tag).toBe("Failure")
    expect(lstatSync(file).isFIFO()).toBe(true)
  })

  test("a missing anvil.json is created, an existing one keeps its other settings", async () => {
    const root = tempDir()
    await saveNetworkHost(root, "example.org")
    expect(JSON.parse(readFileSync(join(root, "anvil.json"), "utf8"))).toEqual({ sandbox: { network: ["example.org"] } })
    await Effect.runPromise(saveAllowRules(root, [{ tool: "bash" }]).pipe(Effect.provide(platform)))
    expect(JSON.parse(readFileSync(join(root, "anvil.json"), "utf8"))).toEqual({ sandbox: { network: ["example.org"] }, permission: { bash: "allow" } })
  })
})

describe("an empty settings file holds no settings", () => {
  test("an empty anvil.json and .mcp.json (a stand-in a killed sandboxed command left) count as missing", async () => {
    const root = tempDir()
    writeFileSync(join(root, "anvil.json"), "")
    writeFileSync(join(root, ".mcp.json"), "")
    expect(readSettingsFile(join(root, "anvil.json"))).toEqual({ kind: "missing" })
    const { sources, problems } = standardSources(root, { HOME: tempDir() })
    expect([sources, problems]).toEqual([[], []])
    await saveNetworkHost(root, "example.org")
    expect(JSON.parse(readFileSync(join(root, "anvil.json"), "utf8"))).toEqual({ sandbox: { network: ["example.org"] } })
  })
})
