import { describe, expect, spyOn, test } from "bun:test"
import * as fs from "node:fs"
import { chmodSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { makeConfig } from "../../src/config/config.ts"
import { loadPlugins } from "../../src/plugins/plugin-host.ts"
import { builtinNames } from "../../src/cli/plugin-setup.ts"
import { makeTrust } from "../../src/trust/trust.ts"
import { project, tempDir } from "../support/harness.ts"

// A start stamps a project plugin's folder (every file's size, mode and times) to know whether its trust still
// holds; the load-time-out memory stamps it too. One walk serves both within a start, and never the next start.

const tool = `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"
export default defineTool({
  name: "walked_tool",
  description: "Echoes.",
  parameters: Schema.Struct({ text: Schema.String }),
  readOnly: true,
  run: ({ text }) => text,
})
`

const setup = () => {
  const outside = tempDir("anvil-walk-outside-")
  writeFileSync(join(outside, "shared.js"), "module.exports = 1\n")
  const root = project({
    ".anvil/plugins/walked/package.json": '{"name": "walked", "main": "index.ts"}\n',
    ".anvil/plugins/walked/index.ts": tool,
    ".anvil/plugins/walked/node_modules/dep/index.js": "module.exports = 1\n",
    ".anvil/plugins/walked/node_modules/dep/shared.js": { link: join(outside, "shared.js") },
  })
  const config = tempDir("anvil-walk-cfg-")
  const env = { XDG_CONFIG_HOME: config, XDG_CACHE_HOME: join(config, "cache"), HOME: join(config, "home") }
  const folder = join(root, ".anvil", "plugins", "walked")
  const trust = () => Effect.runPromise(makeTrust({ root, env }).trust({ kind: "plugin", name: "walked", content: { path: folder } }))
  const load = async () => {
    const set = await loadPlugins({ root, env, config: makeConfig({}, env), builtinNames: builtinNames(), onProblem: () => {} })
    return set.reports.find((r) => r.name === "walked")
  }
  return { root, outside, folder, trust, load }
}

describe("a project plugin's folder is walked once per start", () => {
  test("trusted and loaded: its node_modules is listed once (the trust check's walk serves the load-time-out memory)", async () => {
    const s = setup()
    await s.trust()
    const listed = spyOn(fs, "readdirSync")
    try {
      expect(await s.load()).toMatchObject({ status: "loaded", trust: "trusted" })
      const dep = join(s.folder, "node_modules", "dep")
      expect(listed.mock.calls.filter((c) => String(c[0]) === dep)).toHaveLength(1)
      listed.mockClear()
      // The next start walks again: what one start saw is never taken for the next.
      expect(await s.load()).toMatchObject({ status: "loaded" })
      expect(listed.mock.calls.filter((c) => String(c[0]) === dep)).toHaveLength(1)
    } finally {
      listed.mockRestore()
    }
  }, 30_000)

  test("each kind of change since the last start asks for trust again: a byte (size and mtime kept), an execute bit, a new file, a linked file", async () => {
    const s = setup()
    const dep = join(s.folder, "node_modules", "dep")
    const changes: Record<string, () => void> = {
      "a byte, size and mtime kept": () => {
        const file = join(dep, "index.js")
        const before = statSync(file)
        writeFileSync(file, "module.exports = 2\n")
        utimesSync(file, before.atime, before.mtime)
      },
      "an execute bit": () => chmodSync(join(dep, "index.js"), 0o755),
      "a new file": () => writeFileSync(join(dep, "postinstall.js"), "require('child_process')\n"),
      "the file a link leads to": () => writeFileSync(join(s.outside, "shared.js"), "module.exports = 3\n"),
    }
    for (const [what, change] of Object.entries(changes)) {
      await s.trust()
      expect({ what, report: await s.load() }).toMatchObject({ what, report: { status: "loaded", trust: "trusted" } })
      change()
      expect({ what, report: await s.load() }).toMatchObject({ what, report: { status: "untrusted", trust: "changed" } })
    }
  }, 60_000)
})
