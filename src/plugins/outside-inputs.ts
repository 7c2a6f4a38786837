import { realpathSync } from "node:fs"
import { sep } from "node:path"

/** The code of a project plugin refused because its code reaches outside what its trust covers. */
export const PLUGIN_IMPORTS_OUTSIDE = "plugin_imports_outside"

const real = (path: string): string => {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

/**
 * The first file a bundle was made from that is not the plugin's own: outside its folder, or for a one-file plugin
 * any file but itself. Both sides are compared by their real paths, so a symbolic link in the folder that leads
 * out (a workspace package linked into its node_modules) counts as outside.
 */
export const firstOutside = (inputs: ReadonlyArray<string>, own: { readonly folder?: string; readonly file?: string }): string | undefined => {
  const folder = own.folder === undefined ? undefined : real(own.folder)
  const file = own.file === undefined ? undefined : real(own.file)
  return inputs.find((input) => {
    const path = real(input)
    if (folder !== undefined) return path !== folder && !path.startsWith(folder.endsWith(sep) ? folder : folder + sep)
    return path !== file
  })
}

/**
 * Why a project plugin is not loaded: trust hashes only its own file or folder, so code it imports from elsewhere
 * (the repository's node_modules, a sibling file, a workspace package) could change without asking again.
 */
export const outsideProblem = (plugin: string, outside: string, oneFile: boolean): { readonly code: string; readonly message: string } => ({
  code: PLUGIN_IMPORTS_OUTSIDE,
  message:
    `project plugin '${plugin}' imports ${outside}, outside its ${oneFile ? "file" : "folder"}, which its trust does not cover; ` +
    (oneFile
      ? "make it a folder plugin with that code (and its packages) inside the folder, "
      : "vendor that code into the plugin's folder (or install its packages in the folder's own node_modules), ") +
    "then 'anvil plugins trust " + plugin + "', or install the plugin at user level (~/.config/anvil/plugins)",
})
