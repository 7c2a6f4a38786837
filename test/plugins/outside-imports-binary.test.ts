import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, mkdirSync, realpathSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { runBinary } from "../support/anvil-binary.ts"
import { project, tempDir, writeTree } from "../support/harness.ts"

// Trust hashes a project plugin's own file or folder only: through the compiled binary, a trusted project plugin whose
// code reaches outside that (a sibling file, a workspace package linked into its node_modules) is refused with
// plugin_imports_outside before any of it runs, the others load, and a user's own plugin may import what it likes.
setDefaultTimeout(120_000)

const tool = (name: string, from: string) =>
  `import { defineTool } from "anvil/plugin"\nimport { Schema } from "effect"\n${from}\n` +
  `export default defineTool({ name: "${name}", description: "d", parameters: Schema.Struct({}), run: () => String(value) })\n`

const sandbox = (tree: Record<string, string>) => {
  const root = project(tree)
  const base = tempDir("anvil-outside-env-")
  const env = { XDG_CONFIG_HOME: join(base, "config"), XDG_CACHE_HOME: join(base, "cache"), HOME: join(base, "home") }
  mkdirSync(env.HOME, { recursive: true })
  const anvil = (args: ReadonlyArray<string>) => runBinary(args, { cwd: root, env })
  return { root, env, anvil }
}

const statuses = async (anvil: ReturnType<typeof sandbox>["anvil"]) => {
  const list = JSON.parse((await anvil(["plugins", "--json"])).stdout)
  return Object.fromEntries(list.plugins.map((p: any) => [p.name, { status: p.status, code: p.error?.code, message: p.error?.message }]))
}

describe("a project plugin importing code outside its own file or folder", () => {
  test("refused once trusted (folder, one file, a symbolic link leading out), naming the file; its own files load", async () => {
    const s = sandbox({
      "lib.js": "export const value = 'outside'\n",
      "packages/dep/package.json": '{"name":"dep","main":"index.js"}\n',
      "packages/dep/index.js": "export const value = 'workspace'\n",
      ".anvil/plugins/leaky/package.json": '{"name":"leaky","main":"index.ts"}\n',
      ".anvil/plugins/leaky/index.ts": tool("leaky_tool", 'import { value } from "../../../lib.js"'),
      ".anvil/plugins/linked/package.json": '{"name":"linked","main":"index.ts"}\n',
      ".anvil/plugins/linked/index.ts": tool("linked_tool", 'import { value } from "dep"'),
      ".anvil/plugins/tidy/package.json": '{"name":"tidy","main":"index.ts"}\n',
      ".anvil/plugins/tidy/index.ts": tool("tidy_tool", 'import { value } from "./helper.ts"'),
      ".anvil/plugins/tidy/helper.ts": "export const value = 'own'\n",
      ".anvil/plugins/single.ts": tool("single_tool", 'import { value } from "../../lib.js"'),
      ".anvil/plugins/alone.ts": tool("alone_tool", "const value = 'alone'"),
    })
    mkdirSync(join(s.root, ".anvil/plugins/linked/node_modules"), { recursive: true })
    symlinkSync(join(s.root, "packages/dep"), join(s.root, ".anvil/plugins/linked/node_modules/dep"))
    expect((await s.anvil(["plugins", "trust"])).code).toBe(0)
    const lib = realpathSync(join(s.root, "lib.js"))
    const got = await statuses(s.anvil)
    expect(got.leaky).toMatchObject({ status: "error", code: "plugin_imports_outside" })
    expect(got.leaky.message).toContain(`project plugin 'leaky' imports ${lib}, outside its folder`)
    expect(got.leaky.message).toContain("vendor that code into the plugin's folder")
    expect(got.leaky.message).toContain("install the plugin at user level")
    expect(got.linked).toMatchObject({ status: "error", code: "plugin_imports_outside" })
    expect(got.linked.message).toContain(`imports ${realpathSync(join(s.root, "packages/dep/index.js"))}, outside its folder`)
    expect(got.single).toMatchObject({ status: "error", code: "plugin_imports_outside" })
    expect(got.single.message).toContain(`imports ${lib}, outside its file`)
    expect(got.single.message).toContain("make it a folder plugin")
    expect(got.tidy).toMatchObject({ status: "loaded" })
    expect(got.alone).toMatchObject({ status: "loaded" })
    // Everything else goes on: the plugins that stay inside run; the refused one's tool is not there.
    const r = await s.anvil(["tool", "tidy_tool", "{}"])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).text).toBe("# tidy_tool\n\nown")
    expect((await s.anvil(["tool", "alone_tool", "{}"])).stdout).toContain("alone")
    expect((await s.anvil(["tool", "leaky_tool", "{}"])).code).not.toBe(0)
    // A second start reads the remembered inputs (the cache) and says the same.
    expect((await statuses(s.anvil)).single).toMatchObject({ status: "error", code: "plugin_imports_outside" })
  })

  test("a macro (run by the bundler before any check) is refused in a project plugin, however spelt; data imports load", async () => {
    const marker = join(tempDir("anvil-macro-"), "ran")
    const macro = `import { writeFileSync } from "node:fs"\nexport const m = () => { writeFileSync(${JSON.stringify(marker)}, "x"); return 1 }\n`
    const s = sandbox({
      "macro.ts": macro,
      ".anvil/plugins/mac/package.json": '{"name":"mac","main":"index.ts"}\n',
      ".anvil/plugins/mac/index.ts": tool("mac_tool", 'import { m } from "../../../macro.ts" with { type: "macro" }\nconst value = m()'),
      ".anvil/plugins/inner/package.json": '{"name":"inner","main":"index.ts"}\n',
      ".anvil/plugins/inner/index.ts": tool("inner_tool", 'import { value } from "./helper.ts"'),
      ".anvil/plugins/inner/helper.ts": 'import { m } from "./m.ts" with { "type" : \'macro\' }\nexport const value = m()\n',
      ".anvil/plugins/inner/m.ts": macro,
      ".anvil/plugins/one.ts": tool("one_tool", 'import { m } from "../../macro.ts" assert { type: "macro" }\nconst value = m()'),
      ".anvil/plugins/data/package.json": '{"name":"data","main":"index.ts"}\n',
      ".anvil/plugins/data/index.ts": tool("data_tool", 'import info from "./info.json" with { type: "json" }\nconst value = info.v'),
      ".anvil/plugins/data/info.json": '{"v":"data"}\n',
    })
    expect((await s.anvil(["plugins", "trust"])).code).toBe(0)
    const got = await statuses(s.anvil)
    for (const name of ["mac", "inner", "one"]) {
      expect({ name, ...got[name] }).toMatchObject({ name, status: "error", code: "plugin_macro" })
      expect(got[name].message).toContain("imports a Bun macro")
    }
    expect(got.data).toMatchObject({ status: "loaded" })
    expect((await s.anvil(["tool", "data_tool", "{}"])).stdout).toContain("data")
    expect((await s.anvil(["tool", "one_tool", "{}"])).code).not.toBe(0)
    expect(existsSync(marker)).toBe(false)
  })

  test("a user's own plugin may import from outside its folder", async () => {
    const s = sandbox({})
    writeTree(join(s.env.XDG_CONFIG_HOME, "anvil"), {
      "lib.js": "export const value = 'shared'\n",
      "plugins/mine/package.json": '{"name":"mine","main":"index.ts"}\n',
      "plugins/mine/index.ts": tool("mine_tool", 'import { value } from "../../lib.js"'),
    })
    const r = await s.anvil(["tool", "mine_tool", "{}"])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).text).toBe("# mine_tool\n\nshared")
  })
})
