import { extname, join } from "node:path"

/**
 * A plugin's name — a module's file name without its extension or its folder's name, a Claude Code plugin's
 * `name` — is known before any of its code runs: trust, `plugins.disabled` and `plugins.options` go by it, and
 * anvil names things after it (a Claude Code plugin's MCP servers `plugin_<name>_<server>`, whose tools the model
 * calls; its agents `<name>:<agent>`). So it must be usable in those names: a name that is not is the plugin's
 * error, with the code below and the name to use instead.
 */
export const INVALID_PLUGIN_NAME = "invalid_plugin_name"
/** A module's `definePlugin({ name })` that is not its name (said as a warning; the file's name holds). */
export const PLUGIN_NAME_MISMATCH = "plugin_name_mismatch"
/** A Claude Code plugin's usable name that is not kebab-case, as Claude Code asks (said as a warning). */
export const PLUGIN_NAME_NOT_KEBAB = "plugin_name_not_kebab_case"

const USABLE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

const RULE = "a letter or digit, then letters, digits, '-' or '_' (at most 64)"

/** The kebab-case name closest to `name` ("My Plugin:x/y" → "my-plugin-x-y"). */
export const kebabName = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "") || "my-plugin"

/** Where a plugin's name comes from, to say how to change it. */
export type NameOrigin =
  | { readonly kind: "file"; readonly path: string }
  | { readonly kind: "folder"; readonly path: string }
  | { readonly kind: "manifest"; readonly path: string }
  | { readonly kind: "marketplace" }

const renameTo = (origin: NameOrigin, to: string): string => {
  switch (origin.kind) {
    case "file":
      return `rename the file to '${to}${extname(origin.path)}'`
    case "folder":
      return `rename the folder to '${to}'`
    case "manifest":
      return `set "name" in ${join(origin.path, ".claude-plugin", "plugin.json")} to "${to}"`
    case "marketplace":
      return `set the plugin's "name" in its marketplace's marketplace.json to "${to}"`
  }
}

/** Why `name` cannot name a plugin, with the code and the next step; undefined when it can. */
export const pluginNameProblem = (name: string, origin: NameOrigin): string | undefined =>
  USABLE.test(name)
    ? undefined
    : `the plugin name ${JSON.stringify(name)} cannot be used (${INVALID_PLUGIN_NAME}): a plugin's name is ${RULE}, and kebab-case (lowercase, words joined by '-') as Claude Code's are is best; ${renameTo(origin, kebabName(name))}`

/** A Claude Code plugin's usable name that is not kebab-case: the warning, or undefined. */
export const kebabWarning = (name: string, origin: NameOrigin): string | undefined =>
  !USABLE.test(name) || KEBAB.test(name)
    ? undefined
    : `the plugin name '${name}' is not kebab-case (${PLUGIN_NAME_NOT_KEBAB}): Claude Code asks for lowercase words joined by '-'; anvil loads it as '${name}', but ${renameTo(origin, kebabName(name))}`

/** A module's `definePlugin({ name })` that differs from its name: the warning, or undefined. */
export const mismatchWarning = (given: unknown, name: string, origin: NameOrigin): string | undefined => {
  if (typeof given !== "string" || given === name) return undefined
  const what = origin.kind === "file" ? `its file's name without ${extname(origin.path)}` : "its folder's name"
  const usable = USABLE.test(given) ? given : kebabName(given)
  const next = usable === name ? `write name: "${name}" in definePlugin, or leave it out` : `${renameTo(origin, usable)}, or leave name out of definePlugin`
  return `definePlugin names it ${JSON.stringify(given)}, but the plugin is '${name}' (${PLUGIN_NAME_MISMATCH}): a plugin is named by ${what}, known before its code runs, which trust, plugins.disabled and plugins.options use; ${next}`
}

/** Where a discovered plugin's name came from. */
export const nameOrigin = (plugin: { readonly kind: "module" | "claude"; readonly path: string; readonly folder: boolean; readonly manifest?: unknown }): NameOrigin =>
  plugin.manifest !== undefined
    ? { kind: "marketplace" }
    : plugin.kind === "claude"
      ? { kind: "manifest", path: plugin.path }
      : plugin.folder
        ? { kind: "folder", path: plugin.path }
        : { kind: "file", path: plugin.path }
