import { readFileSync } from "node:fs"
import { isAbsolute, resolve } from "node:path"
import type { GitFsClient } from "./git-fs.ts"

/** git stops following alternates of alternates at this depth (its own limit). */
const MAX_DEPTH = 5

/** The object folders one `objects/info/alternates` file names (absolute, or relative to `objectsDir`), comments skipped. */
const listed = (objectsDir: string): Array<string> => {
  let text: string
  try {
    text = readFileSync(`${objectsDir}/info/alternates`, "utf8")
  } catch {
    return []
  }
  return text
    .split("\n")
    .map((line) => line.replace(/\r$/, ""))
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
    .map((line) => (line.startsWith('"') && line.endsWith('"') ? JSON.parse(line) as string : line))
    .map((line) => (isAbsolute(line) ? line : resolve(objectsDir, line)))
}

/**
 * Every object folder a repository borrows from, in git's search order: its
 * own `objects/info/alternates` (as `git clone --shared` and `--reference`
 * write it), then theirs, up to git's depth limit; each folder once.
 */
export const alternateObjectDirs = (objectsDir: string): ReadonlyArray<string> => {
  const seen = new Set([resolve(objectsDir)])
  const out: Array<string> = []
  let level = [objectsDir]
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const next: Array<string> = []
    for (const dir of level) {
      for (const alt of listed(dir)) {
        const key = resolve(alt)
        if (seen.has(key)) continue
        seen.add(key)
        out.push(key)
        next.push(key)
      }
    }
    level = next
  }
  return out
}

const missing = (e: unknown) => {
  const code = (e as { code?: unknown } | null)?.code
  return code === "ENOENT" || code === "ENOTDIR"
}

/**
 * isomorphic-git reads objects only from the repository's own folder. This
 * file system lets it see borrowed ones too: a loose object or pack file
 * missing from `objectsDir` is read from the first alternate that has it, and
 * listing `objects/pack` (or a loose object's two-letter folder) lists the
 * alternates' entries as well. Writes still go to the repository's own
 * folder, as git writes them.
 */
export const withAlternates = (fs: GitFsClient, objectsDir: string, alternates: ReadonlyArray<string>): GitFsClient => {
  const prefix = `${objectsDir}/`
  /** The path below the objects folder that may be borrowed, or undefined (info/ and everything outside stay local). */
  const borrowable = (p: unknown): string | undefined => {
    if (typeof p !== "string" || !p.startsWith(prefix)) return undefined
    const rel = p.slice(prefix.length).replace(/^\/+/, "")
    return rel === "" || rel === "info" || rel.startsWith("info/") ? undefined : rel
  }
  const reads = new Set(["readFile", "stat", "lstat", "readlink"])
  const promises = new Proxy(fs.promises, {
    get: (target, key) => {
      const value = Reflect.get(target, key) as unknown
      if (typeof value !== "function") return value
      const call = (first: unknown, rest: ReadonlyArray<unknown>) => (value as (...a: Array<unknown>) => Promise<unknown>).call(target, first, ...rest)
      if (reads.has(String(key))) {
        return async (first: unknown, ...rest: Array<unknown>) => {
          const rel = borrowable(first)
          try {
            return await call(first, rest)
          } catch (e) {
            if (rel === undefined || !missing(e)) throw e
            for (const alt of alternates) {
              try {
                return await call(`${alt}/${rel}`, rest)
              } catch (inner) {
                if (!missing(inner)) throw inner
              }
            }
            throw e
          }
        }
      }
      if (key === "readdir") {
        return async (first: unknown, ...rest: Array<unknown>) => {
          const rel = borrowable(first)
          if (rel === undefined || !(rel === "pack" || /^[0-9a-f]{2}$/.test(rel))) return call(first, rest)
          const own = await call(first, rest).then((names) => names as Array<string>, (e: unknown) => e)
          const names = new Set<string>(Array.isArray(own) ? own : [])
          let found = Array.isArray(own)
          for (const alt of alternates) {
            const theirs = await call(`${alt}/${rel}`, rest).catch(() => undefined)
            if (!Array.isArray(theirs)) continue
            found = true
            for (const name of theirs as Array<string>) names.add(name)
          }
          if (!found) throw own
          return [...names]
        }
      }
      return value
    },
  })
  // isomorphic-git takes `promises` only when it is an own enumerable property.
  return { ...fs, promises } as GitFsClient
}
