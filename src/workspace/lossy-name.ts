import { readdirSync } from "node:fs"

/**
 * Every path whose bytes decode (with replacement characters) to `lossy`
 * (a file name that is not valid UTF-8, as ripgrep's plain output gives it),
 * found again by listing each folder whose entry has such a name; a path
 * without U+FFFD is returned as it is. Several come back
 * when names differ only in bytes that are not UTF-8 (or one holds
 * U+FFFD itself), in their folder's order. Only the last name may be one of
 * several; a folder on the way must be one entry.
 */
export const allPathBytesOf = (lossy: string): Array<string | Buffer> => {
  if (!lossy.includes("\uFFFD")) return [lossy]
  const parts = lossy.split("/")
  let at: Buffer = Buffer.from(parts[0] === "" ? "/" : parts[0]!)
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i]!
    let name: Buffer | undefined = Buffer.from(part)
    if (part.includes("\uFFFD")) {
      let entries: Array<Buffer>
      try {
        entries = readdirSync(at, { encoding: "buffer" })
      } catch {
        return []
      }
      const matches = entries.filter((e) => e.toString("utf8") === part)
      if (i === parts.length - 1 && matches.length > 1) return matches.map((m) => child(at, m))
      if (matches.length !== 1) return []
      name = matches[0]
    }
    at = child(at, name!)
  }
  return [at]
}

/** A folder's path bytes joined with one entry's name. */
const child = (dir: Buffer, name: Buffer): Buffer => Buffer.concat(dir[dir.length - 1] === 0x2f ? [dir, name] : [dir, Buffer.from("/"), name])
