import { readdirSync } from "node:fs"

/**
 * The bytes of a path that was decoded with replacement characters (a file
 * name that is not valid UTF-8, as ripgrep reports it), found again by
 * listing each folder whose entry has such a name; undefined when no entry, or
 * more than one, decodes to the name given. A path without U+FFFD is returned
 * as it is.
 */
export const pathBytesOf = (lossy: string): string | Buffer | undefined => {
  if (!lossy.includes("\uFFFD")) return lossy
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
        return undefined
      }
      const matches = entries.filter((e) => e.toString("utf8") === part)
      if (matches.length !== 1) return undefined
      name = matches[0]
    }
    at = Buffer.concat([at, at[at.length - 1] === 0x2f ? Buffer.alloc(0) : Buffer.from("/"), name!])
  }
  return at
}
