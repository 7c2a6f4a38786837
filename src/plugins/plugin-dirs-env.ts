/**
 * `ANVIL_PLUGIN_DIRS`, the run's extra plugin folders: `:`-separated as PATH is, or a JSON array of strings when
 * it starts with `[`. The Agent SDK host writes the array form whenever a folder's path holds a `:` or a line
 * break, which the separated form cannot carry (a `:` would cut the path in two).
 */

/** The folders named, and what is wrong with the value (a JSON array that does not parse). */
export const readPluginDirs = (value: string | undefined): { readonly dirs: ReadonlyArray<string>; readonly problem?: string } => {
  if (value === undefined || value.trim() === "") return { dirs: [] }
  if (!value.trimStart().startsWith("[")) return { dirs: value.split(":").filter((d) => d.trim() !== "") }
  try {
    const parsed: unknown = JSON.parse(value)
    if (Array.isArray(parsed) && parsed.every((d) => typeof d === "string")) return { dirs: parsed.filter((d) => d.trim() !== "") }
  } catch {
    // Said below, as for a value of another shape.
  }
  return { dirs: [], problem: `ANVIL_PLUGIN_DIRS starts with '[' but is not a JSON array of strings; no folder of it was loaded (write ["/a/dir", "/b:c"] or /a/dir:/b/dir)` }
}

/** The value naming `dirs`: the separated form when it can hold them, else the JSON array. */
export const writePluginDirs = (dirs: ReadonlyArray<string>): string =>
  dirs.some((d) => /[:\n\r]/.test(d) || d.trimStart().startsWith("[")) ? JSON.stringify(dirs) : dirs.join(":")
