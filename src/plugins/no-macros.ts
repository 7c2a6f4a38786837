import type { BunPlugin, Loader } from "bun"
import { readFileSync } from "node:fs"

/** The code of a project plugin refused because a file of its bundle imports a Bun macro. */
export const PLUGIN_MACRO = "plugin_macro"

/** An import's attributes (`"./m.ts" with { type: "macro" }`, or the older `assert`), found after its specifier. */
const ATTRIBUTES = /["'`]\s*(?:with|assert)\s*\{([^{}]*)\}/g
/** The attributes that only say how to read data: anything else (a macro, however spelt) is refused. */
const DATA_ONLY = /^\s*(?:["']?type["']?\s*:\s*["'](?:json|jsonc|toml|yaml|text|file|sqlite)["']\s*,?\s*)?$/

const loaderOf = (path: string): Loader => {
  if (/\.[cm]?tsx$/.test(path) || path.endsWith(".tsx")) return "tsx"
  if (/\.[cm]?ts$/.test(path)) return "ts"
  return path.endsWith(".jsx") ? "jsx" : "js"
}

/**
 * A bundler plugin that refuses any file importing a macro. Bun runs a macro while it bundles, before anvil can
 * look at what the bundle was made from, and a macro's own file is not among the bundle's inputs: a trusted project
 * plugin importing one from outside its folder would run code its trust does not cover, unasked. Each file is
 * checked as it is loaded, before Bun parses it, so no macro it names runs. `refused` receives the file.
 */
export const noMacros = (refused: (file: string) => void): BunPlugin => ({
  name: "anvil-no-macros",
  setup(build) {
    build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (args) => {
      const contents = readFileSync(args.path, "utf8")
      for (const match of contents.matchAll(ATTRIBUTES)) {
        if (!DATA_ONLY.test(match[1]!)) {
          refused(args.path)
          throw new Error(`${args.path} imports a macro`)
        }
      }
      return { contents, loader: loaderOf(args.path) }
    })
  },
})

/** Why a project plugin that uses a macro is not loaded. */
export const macroProblem = (plugin: string, file: string): { readonly code: string; readonly message: string } => ({
  code: PLUGIN_MACRO,
  message:
    `project plugin '${plugin}': ${file} imports a Bun macro (an import with { type: "macro" }), which runs while the ` +
    "plugin is bundled, before anvil can check it; a project plugin may not use macros: compute the value in the plugin " +
    "instead, or install the plugin at user level (~/.config/anvil/plugins)",
})
