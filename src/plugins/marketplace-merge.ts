import { existsSync } from "node:fs"
import { join } from "node:path"

/**
 * A marketplace entry beside the plugin's own `.claude-plugin/plugin.json`, read by Claude Code's `strict` rule (docs:
 * plugin marketplaces, "Strict mode"): `"strict": true`, the default, keeps plugin.json the authority and adds the
 * components the entry declares to its own; `"strict": false` makes the entry the whole definition, and a plugin.json
 * that declares components too is a conflict: Claude Code does not load the plugin.
 */

/** The fields that name a plugin's parts (the others — name, version, author — are its description). */
export const COMPONENT_FIELDS = ["commands", "agents", "skills", "hooks", "mcpServers", "lspServers", "outputStyles"] as const

/** `commands` and `agents` in a manifest replace the default folder; added by the entry, they come after it. */
const REPLACING: ReadonlySet<string> = new Set(["commands", "agents"])

const asList = (value: unknown): Array<unknown> => (value === undefined ? [] : Array.isArray(value) ? value : [value])

const declares = (manifest: Readonly<Record<string, unknown>>): Array<string> => COMPONENT_FIELDS.filter((f) => manifest[f] !== undefined)

export type Merged =
  /** The manifest to read the folder with; undefined when plugin.json alone describes it (the entry adds no part). */
  | { readonly manifest: Readonly<Record<string, unknown>> | undefined }
  | { readonly conflict: string }

/**
 * The manifest of a plugin folder that has its own plugin.json (`own`, already read) and a marketplace `entry`. The
 * merged manifest holds the entry's parts, so trusting the plugin covers them (see pluginTrustContent).
 */
export const mergeWithEntry = (dir: string, own: Readonly<Record<string, unknown>>, entry: Readonly<Record<string, unknown>>): Merged => {
  const added = declares(entry)
  if (entry.strict === false) {
    const both = declares(own)
    if (both.length > 0) {
      return {
        conflict:
          `its marketplace entry says "strict": false (the entry is the whole plugin), but ${join(dir, ".claude-plugin", "plugin.json")} ` +
          `declares ${both.join(", ")} too; Claude Code does not load such a plugin: remove them from one of the two`,
      }
    }
    return { manifest: { ...own, ...entry } }
  }
  if (added.length === 0) return { manifest: undefined }
  const merged: Record<string, unknown> = { ...own }
  for (const field of added) {
    const base = own[field] !== undefined ? asList(own[field]) : REPLACING.has(field) && existsSync(join(dir, field)) ? [`./${field}`] : []
    merged[field] = [...base, ...asList(entry[field])]
  }
  return { manifest: merged }
}
