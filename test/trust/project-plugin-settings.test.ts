import { describe, expect, test } from "bun:test"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { readConfig, type ConfigShape } from "../../src/config/config.ts"
import { ignoredSettingsNotice } from "../../src/config/ignored.ts"
import { loadPlugins, pluginSettings, toolsWithPlugins } from "../../src/plugins/plugin-host.ts"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { guardProjectConfig, trustProjectSettings } from "../../src/trust/project-settings.ts"
import { builtinTools, callTool, project, tempDir, writeTree, type TreeSpec } from "../support/harness.ts"

// An untrusted project may only narrow what the user's own plugins do: disable one, shorten the hook time
// limit; its options for a user plugin (they reach that plugin's code) and a longer hook limit wait for trust.

/** A plugin whose one tool answers with the options it was handed. */
const echoOptions = (tool: string) => `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({ name: "${tool}", description: "Shows its options.", parameters: Schema.Struct({}), readOnly: true, run: (_p, ctx) => ({ options: ctx.options }) })
`

const setup = (input: { project: unknown; user?: unknown; userPlugins?: TreeSpec; projectTree?: TreeSpec }) => {
  const root = project(input.projectTree ?? {})
  writeFileSync(join(root, "anvil.json"), JSON.stringify(input.project))
  const home = tempDir("anvil-plugin-trust-")
  mkdirSync(join(home, "config", "anvil", "plugins"), { recursive: true })
  writeTree(join(home, "config", "anvil", "plugins"), input.userPlugins ?? {})
  if (input.user !== undefined) writeFileSync(join(home, "config", "anvil", "anvil.json"), JSON.stringify(input.user))
  const env = { XDG_CONFIG_HOME: join(home, "config"), XDG_CACHE_HOME: join(home, "cache"), HOME: join(home, "home") }
  return { root, env }
}

const guarded = async (root: string, env: Record<string, string>) => {
  const raw = (await readConfig({ root, env, checkCache: false })) as ConfigShape
  return { raw, config: await Effect.runPromise(guardProjectConfig(raw, root)) }
}

const optionsSeen = async (root: string, env: Record<string, string>, config: ConfigShape, tool: string) => {
  const set = await loadPlugins({ root, env, config, builtinNames: builtinNames(), trustProject: true })
  const { envelope } = await callTool(root, tool, {}, { tools: toolsWithPlugins(builtinTools, set), env })
  return (envelope.data as { options: unknown }).options
}

describe("a project's plugin settings and the user's own plugins", () => {
  test("options for a user plugin and a longer hook limit are ignored and reported until trusted; the project's own plugin gets its options; disabled lists add up", async () => {
    const { root, env } = setup({
      project: { plugins: { options: { guard: { deny: [] }, mine: { level: 2 } }, hook_timeout_ms: 60_000, disabled: ["noisy"] } },
      user: { plugins: { options: { guard: { deny: ["terraform destroy"] } }, disabled: ["old"] } },
      userPlugins: { "guard.ts": echoOptions("guard_options") },
      projectTree: { ".anvil/plugins/mine.ts": echoOptions("mine_options") },
    })
    const { raw, config } = await guarded(root, env)
    expect((config.ignored ?? []).map((i) => i.key)).toEqual(["plugins.hook_timeout_ms", "plugins.options.guard"])
    const notice = ignoredSettingsNotice(config.ignored, "plugins")!
    expect(notice).toContain('plugins.options.guard: {"deny":[]}')
    expect(notice).toContain("anvil config trust")
    const settings = pluginSettings(config)
    expect(settings.hookTimeoutMs).toBe(5_000)
    // The user's disabled plugin stays disabled beside the one the project disables.
    expect(settings.disabled).toEqual(["old", "noisy"])
    expect(await optionsSeen(root, env, config, "guard_options")).toEqual({ deny: ["terraform destroy"] })
    expect(await optionsSeen(root, env, config, "mine_options")).toEqual({ level: 2 })

    // Trusted, all of it applies (a later change asks again).
    expect(await Effect.runPromise(trustProjectSettings(raw, root))).toEqual(["plugins.hook_timeout_ms", "plugins.options.guard"])
    const trusted = (await guarded(root, env)).config
    expect(trusted.ignored).toBeUndefined()
    expect(pluginSettings(trusted).hookTimeoutMs).toBe(60_000)
    expect(await optionsSeen(root, env, trusted, "guard_options")).toEqual({ deny: [] })
    expect(pluginSettings(trusted).disabled).toEqual(["old", "noisy"])
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ plugins: { options: { guard: { deny: ["x"] } } } }))
    expect((await guarded(root, env)).config.ignored?.map((i) => [i.key, i.trust])).toEqual([["plugins.options.guard", "changed"]])
  })

  test("a shorter hook limit and disabling a user plugin need trust too (a guard's hook must not be switched off or made to time out); the project's own names in disabled apply", async () => {
    const narrow = setup({
      project: { plugins: { hook_timeout_ms: 200, disabled: ["guard", "mine"] } },
      user: { plugins: { hook_timeout_ms: 1_000 } },
      userPlugins: { "guard.ts": echoOptions("guard_options") },
      projectTree: { ".anvil/plugins/mine.ts": echoOptions("mine_options") },
    })
    const { raw, config } = await guarded(narrow.root, narrow.env)
    expect(config.ignored?.map((i) => [i.key, i.value])).toEqual([["plugins.hook_timeout_ms", 200], ["plugins.disabled", ["guard"]]])
    expect(pluginSettings(config).hookTimeoutMs).toBe(1_000)
    expect(pluginSettings(config).disabled).toEqual(["mine"])
    expect(await Effect.runPromise(trustProjectSettings(raw, narrow.root))).toEqual(["plugins.hook_timeout_ms", "plugins.disabled"])
    const trusted = (await guarded(narrow.root, narrow.env)).config
    expect(trusted.ignored).toBeUndefined()
    expect(pluginSettings(trusted).hookTimeoutMs).toBe(200)
    expect(pluginSettings(trusted).disabled).toEqual(["guard", "mine"])
    // A longer limit than the user's own is measured against it, not against the default.
    const longer = setup({ project: { plugins: { hook_timeout_ms: 2_000 } }, user: { plugins: { hook_timeout_ms: 1_000 } }, userPlugins: { "guard.ts": echoOptions("guard_options") } })
    expect((await guarded(longer.root, longer.env)).config.ignored?.map((i) => i.key)).toEqual(["plugins.hook_timeout_ms"])
    // No plugin of the user's: the project's settings reach only its own plugins.
    const alone = setup({ project: { plugins: { hook_timeout_ms: 60_000, options: { mine: { level: 2 }, guard: { deny: [] } } } }, projectTree: { ".anvil/plugins/mine.ts": echoOptions("mine_options") } })
    const own = (await guarded(alone.root, alone.env)).config
    expect(own.ignored).toBeUndefined()
    expect(pluginSettings(own).hookTimeoutMs).toBe(60_000)
    expect(await optionsSeen(alone.root, alone.env, own, "mine_options")).toEqual({ level: 2 })
  })

  test("a user plugin named by the user's plugins.paths or ANVIL_PLUGIN_DIRS (an Agent SDK program's plugins) counts as the user's", async () => {
    const outside = tempDir("anvil-sdk-plugins-")
    writeTree(outside, { "sdk.ts": echoOptions("sdk_options"), "listed.ts": echoOptions("listed_options") })
    const { root, env } = setup({
      project: { plugins: { options: { sdk: { a: 1 }, listed: { b: 2 } } } },
      user: { plugins: { paths: [join(outside, "listed.ts")] } },
    })
    const withSdk = { ...env, ANVIL_PLUGIN_DIRS: join(outside, "sdk.ts") }
    const { config } = await guarded(root, withSdk)
    expect((config.ignored ?? []).map((i) => i.key).sort()).toEqual(["plugins.options.listed", "plugins.options.sdk"])
    expect(await optionsSeen(root, withSdk, config, "sdk_options")).toEqual({})
  })
})

describe("a project's plugin settings of the wrong type", () => {
  test("cannot wipe the user's disabled list, options or time limit through the merge (each is also a warning)", async () => {
    const user = { plugins: { disabled: ["old"], options: { guard: { deny: ["rm"] } }, hook_timeout_ms: 1_000 } }
    const userPlugins = { "guard.ts": echoOptions("guard_options") }
    for (const plugins of ["off", { disabled: "old", options: [], hook_timeout_ms: "slow" }]) {
      const { root, env } = setup({ project: { plugins }, user, userPlugins })
      const { config } = await guarded(root, env)
      const settings = pluginSettings(config)
      expect(settings.disabled).toEqual(["old"])
      expect(settings.options).toEqual({ guard: { deny: ["rm"] } })
      expect(settings.hookTimeoutMs).toBe(1_000)
    }
  })
})
