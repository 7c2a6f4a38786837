import * as effect from "effect"
import * as api from "./api.ts"

/**
 * Makes `import … from "anvil/plugin"` and `import … from "effect"` (and
 * `effect/<Module>` for every module the `effect` index exports) inside a
 * plugin resolve to the host's own modules, through Bun's runtime plugin
 * virtual modules. This works in the compiled executable, wins over an
 * `effect` in the plugin's own node_modules (a second copy would make its
 * Schemas and Effects foreign to the host), and costs nothing until a plugin
 * imports them. Registered once per process.
 */
let registered = false

/** The module names a plugin gets from the host (also the bundler's externals). */
export const HOST_MODULES: ReadonlyArray<string> = [
  "anvil/plugin",
  "effect",
  ...Object.keys(effect)
    .filter((k) => /^[A-Z]/.test(k) && typeof (effect as Record<string, unknown>)[k] === "object")
    .map((k) => `effect/${k}`),
]

export const registerHostModules = (): void => {
  if (registered) return
  registered = true
  Bun.plugin({
    name: "anvil-plugin-host",
    setup(build) {
      build.module("anvil/plugin", () => ({ exports: { ...api }, loader: "object" }))
      build.module("effect", () => ({ exports: { ...effect }, loader: "object" }))
      for (const name of HOST_MODULES) {
        if (!name.startsWith("effect/")) continue
        const ns = (effect as Record<string, unknown>)[name.slice("effect/".length)] as Record<string, unknown>
        build.module(name, () => ({ exports: { ...ns }, loader: "object" }))
      }
    },
  })
}
