import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from "node:fs"

let nullDevice: number | undefined
/** /dev/null's device number: a settings file linked (or, in a command's sandbox, bound) to it holds nothing. */
const isNullDevice = (rdev: number): boolean => rdev === (nullDevice ??= statSync("/dev/null").rdev)

/** What is at a settings file's path (anvil.json, .mcp.json). */
export type SettingsFileText =
  | { readonly kind: "missing" }
  | { readonly kind: "text"; readonly text: string }
  /** Something is there that cannot be read as a file: a folder, a FIFO or device, no permission. */
  | { readonly kind: "unreadable"; readonly reason: string }

/**
 * Reads a settings file that anvil or the user may have written. It is opened
 * without blocking and read only when it is a regular file, so a FIFO or a
 * link to a device planted under its name can neither stall a command nor be
 * read for ever. A caller about to rewrite the file tells "missing" (start
 * from nothing) from "unreadable" (leave it alone: replacing it would lose
 * the user's settings). An empty file holds no settings and counts as
 * missing: the command sandbox places empty stand-ins under these names while
 * a command runs, and one left behind by a killed anvil must not stop every
 * later command as a file that is not JSON.
 */
export const readSettingsFile = (file: string): SettingsFileText => {
  let fd: number | undefined
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
    const stat = fstatSync(fd)
    if (stat.isCharacterDevice() && isNullDevice(stat.rdev)) return { kind: "missing" }
    if (!stat.isFile()) return { kind: "unreadable", reason: stat.isDirectory() ? "it is a folder" : "it is not a regular file" }
    if (stat.size === 0) return { kind: "missing" }
    // TextDecoder drops a leading byte order mark.
    return { kind: "text", text: new TextDecoder().decode(readFileSync(fd)) }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    if (code === "ENOENT") return { kind: "missing" }
    return { kind: "unreadable", reason: code === "EACCES" || code === "EPERM" ? "permission denied" : code === "EISDIR" ? "it is a folder" : String((e as Error).message ?? e) }
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * What to tell the user about a settings file that is there but cannot be read: it is not a source of
 * settings, and passing over it in silence would leave them wondering why their settings have no effect.
 * Said after the file's name.
 */
export const unreadableSettingsMessage = (file: string, reason: string): string => {
  const next =
    reason === "it is a folder"
      ? "move the folder away (or rename it) and write the settings in a file of that name"
      : reason === "permission denied"
        ? `make it readable (chmod u+r '${file}') or remove it`
        : reason === "it is not a regular file"
          ? "replace it with a regular JSON file, or remove it"
          : "fix or remove it"
  return `cannot be read as a settings file (${reason}): ${next}.`
}
