/**
 * What a plugin's `import … from "effect"` gives it, once the host modules are registered (host-modules.ts).
 * A module of its own, importing nothing: plugin-tool.ts reads it, and importing host-modules.ts there would tie
 * the plugin API and effect's index to the plugin tools' chunk.
 */
let pluginIndex: Readonly<Record<string, unknown>> | undefined

/** Keeps the index plugins are given (host-modules.ts, when it registers the virtual modules). */
export const setPluginEffectIndex = (index: Readonly<Record<string, unknown>>): void => {
  pluginIndex = index
}

/**
 * The module a plugin gets as `effect/<name>` (undefined before the first plugin loads). In the binary it is
 * not the host's own copy (see effect-index.ts), so what a plugin made with it is read with it.
 */
export const pluginEffectModule = (name: string): unknown => pluginIndex?.[name]
