import * as api from "./api.ts"
import { EFFECT_FUNCTION_EXPORTS, EFFECT_NAMESPACES } from "./effect-index.ts"
import { setPluginEffectIndex } from "./plugin-effect.ts"

/**
 * Makes `import … from "anvil/plugin"` and `import … from "effect"` (and
 * `effect/<Module>` for every module the `effect` index exports) inside a
 * plugin resolve to the host's own modules, through Bun's runtime plugin
 * virtual modules. This works in the compiled executable, wins over an
 * `effect` in the plugin's own node_modules (a second copy would make its
 * Schemas and Effects foreign to the host), and costs nothing until the
 * first plugin loads. Registered once per process, after every module is
 * loaded: from source (tests) the virtual modules would also answer the
 * host's own later imports of them.
 */
let registered: Promise<ReadonlyArray<string>> | undefined
/**
 * Registers the virtual modules; resolves to the module names a plugin gets
 * from the host (also the bundler's externals for folder plugins).
 */
export const registerHostModules = (): Promise<ReadonlyArray<string>> =>
  (registered ??= (async () => {
    const names = Object.keys(EFFECT_NAMESPACES)
    const modules = await Promise.all(names.map((n) => EFFECT_NAMESPACES[n]!() as Promise<Record<string, unknown>>))
    const index: Record<string, unknown> = Object.fromEntries(names.map((n, i) => [n, modules[i]]))
    const fn = index.Function as Record<string, unknown>
    for (const f of EFFECT_FUNCTION_EXPORTS) index[f] = fn[f]
    setPluginEffectIndex(index)
    Bun.plugin({
      name: "anvil-plugin-host",
      setup(build) {
        build.module("anvil/plugin", () => ({ exports: { ...api }, loader: "object" }))
        build.module("effect", () => ({ exports: index, loader: "object" }))
        names.forEach((name, i) => build.module(`effect/${name}`, () => ({ exports: { ...modules[i] }, loader: "object" })))
      },
    })
    return ["anvil/plugin", "effect", ...names.map((n) => `effect/${n}`)]
  })())
