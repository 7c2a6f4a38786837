import { describe, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { readConfig } from "../../src/config/config.ts"
import { userConfigDir } from "../../src/mcp/server-sources.ts"
import { userPluginsDir } from "../../src/plugins/places.ts"
import { trustFilePath } from "../../src/trust/trust.ts"
import { userConfigHome, xdgConfigHome } from "../../src/workspace/state-dir.ts"
import { tempDir } from "../support/harness.ts"

describe("the user's config folder", () => {
  test("XDG_CONFIG_HOME counts only when absolute; empty or relative falls back to ~/.config, everywhere alike", () => {
    for (const xdg of [undefined, "", "relative/dir"]) {
      const env = { HOME: "/home/u", ...(xdg === undefined ? {} : { XDG_CONFIG_HOME: xdg }) }
      expect(xdgConfigHome(env)).toBeUndefined()
      expect(userConfigHome(env)).toBe("/home/u/.config")
      expect(userConfigDir(env)).toBe("/home/u/.config/anvil")
      expect(userPluginsDir(env)).toBe("/home/u/.config/anvil/plugins")
      expect(trustFilePath(env)).toBe("/home/u/.config/anvil/trust.json")
    }
    const env = { HOME: "/home/u", XDG_CONFIG_HOME: "/xdg" }
    expect(userConfigHome(env)).toBe("/xdg")
    expect(userPluginsDir(env)).toBe("/xdg/anvil/plugins")
    expect(userConfigHome({})).toBeUndefined()
  })

  test("an empty XDG_CONFIG_HOME still reads ~/.config/anvil/anvil.json (and never a relative anvil/anvil.json)", async () => {
    const root = tempDir()
    const home = tempDir()
    mkdirSync(join(root, "anvil"))
    writeFileSync(join(root, "anvil", "anvil.json"), JSON.stringify({ output: { max_lines: 7 } }))
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ output: { max_lines: 9 } }))
    const config = await readConfig({ root, env: { HOME: home, XDG_CONFIG_HOME: "" } })
    if (config instanceof Error) throw config
    expect(config.count("output.max_lines", 1)).toBe(9)
  })
})
