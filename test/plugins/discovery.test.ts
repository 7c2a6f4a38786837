import { describe, expect, test } from "bun:test"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { discoverPlugins } from "../../src/plugins/discovery.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

describe("plugin discovery (nothing runs)", () => {
  test("what counts as a plugin, its entry, its name; user before project, each alphabetically; plugins.paths by place", () => {
    const root = project({
      ".anvil/plugins/zeta.ts": "",
      ".anvil/plugins/alpha.js": "",
      ".anvil/plugins/types.d.ts": "",
      ".anvil/plugins/_draft.ts": "",
      ".anvil/plugins/.hidden.ts": "",
      ".anvil/plugins/notes.md": "",
      ".anvil/plugins/pkg-main/package.json": JSON.stringify({ main: "lib/entry.js" }),
      ".anvil/plugins/pkg-main/lib/entry.js": "",
      ".anvil/plugins/pkg-exports/package.json": JSON.stringify({ exports: { ".": { import: "./src/index.ts" } } }),
      ".anvil/plugins/pkg-exports/src/index.ts": "",
      ".anvil/plugins/pkg-index/package.json": "{}",
      ".anvil/plugins/pkg-index/index.ts": "",
      ".anvil/plugins/pkg-broken/package.json": JSON.stringify({ main: "gone.js" }),
      ".anvil/plugins/bare/index.mts": "",
      ".anvil/plugins/not-a-plugin/readme.txt": "",
      ".anvil/plugins/cc/.claude-plugin/plugin.json": JSON.stringify({ name: "team-rules" }),
      ".anvil/plugins/cc-bad/.claude-plugin/plugin.json": "{ nope",
      "tools/shared/one.ts": "",
      "tools/single/index.ts": "",
    })
    const config = tempDir("anvil-disc-")
    writeTree(join(config, "anvil", "plugins"), { "mine.ts": "" })
    const outside = tempDir("anvil-disc-out-")
    writeTree(outside, { "far.ts": "" })
    const found = discoverPlugins({
      root,
      env: { XDG_CONFIG_HOME: config },
      paths: ["tools/shared", "tools/single", join(outside, "far.ts"), "missing", 7, ".anvil/plugins/notes.md"],
    })
    expect(found.plugins.map((p) => [p.name, p.source, p.kind, p.entry?.slice(root.length + 1) ?? p.entry, p.problem ?? ""])).toEqual([
      ["far", "user", "module", expect.stringContaining("far.ts"), ""],
      ["mine", "user", "module", expect.stringContaining("mine.ts"), ""],
      ["alpha", "project", "module", ".anvil/plugins/alpha.js", ""],
      ["bare", "project", "module", ".anvil/plugins/bare/index.mts", ""],
      ["cc-bad", "project", "claude", undefined, expect.stringContaining("not valid JSON")],
      ["one", "project", "module", "tools/shared/one.ts", ""],
      ["pkg-broken", "project", "module", undefined, "package.json names gone.js as its entry, which does not exist"],
      ["pkg-exports", "project", "module", ".anvil/plugins/pkg-exports/src/index.ts", ""],
      ["pkg-index", "project", "module", ".anvil/plugins/pkg-index/index.ts", ""],
      ["pkg-main", "project", "module", ".anvil/plugins/pkg-main/lib/entry.js", ""],
      ["single", "project", "module", "tools/single/index.ts", ""],
      ["team-rules", "project", "claude", undefined, ""],
      ["zeta", "project", "module", ".anvil/plugins/zeta.ts", ""],
    ])
    expect(found.problems).toEqual([
      `plugins.paths: ${join(root, "missing")} does not exist`,
      "plugins.paths: 7 is not a path",
      // A file that is no plugin is said so, not passed over.
      `plugins.paths: ${join(root, ".anvil/plugins/notes.md")} is not a plugin (a .ts/.js file, a folder with package.json or index.ts, or a Claude Code plugin folder)`,
    ])
    // Named by the repository's own anvil.json, a plugin outside it came with the repository too: it needs trust.
    writeFileSync(join(root, "anvil.json"), JSON.stringify({ plugins: { paths: [join(outside, "far.ts")] } }))
    const named = discoverPlugins({ root, env: { XDG_CONFIG_HOME: config }, paths: [join(outside, "far.ts")] })
    expect(named.plugins.find((p) => p.name === "far")?.source).toBe("project")
  })
})
