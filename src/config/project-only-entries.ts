import { pluginPathEntries } from "./sections/plugins.ts"
import { isRecord } from "../protocol/is-record.ts"

/** A configuration layer as far as this rule needs it: where it came from and what it holds. */
export interface LayerData {
  readonly source: string
  readonly data: Readonly<Record<string, unknown>>
}

/**
 * The `<section>.paths` entries only the project's anvil.json names (not the user's file, nor the settings anvil
 * was started with). A project's `plugins.paths` and `skills.paths` add to the user's lists, and what only the
 * project adds came with the repository wherever it points; an entry another layer names too stays the user's.
 * Read from the layers the configuration already holds, so no settings file is read twice.
 */
export const projectOnlyEntries = (layers: ReadonlyArray<LayerData>, section: "plugins" | "skills"): ReadonlySet<string> => {
  const entries = (data: Readonly<Record<string, unknown>>) => {
    const value = data[section]
    return pluginPathEntries(isRecord(value) ? value.paths : undefined)
  }
  const project = layers.filter((l) => l.source === "project file").flatMap((l) => entries(l.data))
  const others = new Set(layers.filter((l) => l.source !== "project file").flatMap((l) => entries(l.data)))
  return new Set(project.filter((e) => !others.has(e)))
}
