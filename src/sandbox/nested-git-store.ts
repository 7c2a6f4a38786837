import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { Folder, NestedGitSnapshot } from "./nested-git.ts"

/**
 * The folders of the last nested-git walk of a project, kept between anvil
 * processes: a one-shot `anvil tool bash` would otherwise read every folder of
 * the tree before its command (the walk after it only stats them). The file
 * holds the tree's shape and each folder's stamp, never a verdict: every
 * folder is still looked at by the next walk, and read again when its stamp
 * changed; what makes git run code is read afresh each time. It lives in the
 * project's private state folder, and is neither read nor written when the
 * sandbox lets commands write there (`sandbox.writable` naming the cache, or a
 * project in it): a command could then lay down a shape that hides a
 * repository.
 */
export interface NestedGitStore {
  readonly load: () => { readonly folders: ReadonlyMap<string, Folder> } | undefined
  readonly save: (snapshot: NestedGitSnapshot) => void
}

/** The file's format; another version is ignored. */
const VERSION = 1

type Line = readonly [path: string, stamp: string, git: 0 | 1, subdirs: ReadonlyArray<string>]

/** The store in `file` for the project at `root`. */
export const nestedGitStore = (file: string, root: string): NestedGitStore => ({
  load: () => {
    try {
      const data = JSON.parse(readFileSync(file, "utf8")) as { version?: number; root?: string; folders?: ReadonlyArray<Line> }
      if (data.version !== VERSION || data.root !== root || !Array.isArray(data.folders)) return undefined
      const folders = new Map<string, Folder>()
      for (const [path, stamp, git, subdirs] of data.folders) folders.set(path === "" ? root : join(root, path), { stamp, git: git === 1, subdirs })
      return { folders }
    } catch {
      return undefined // none yet, or cut short: the walk reads every folder
    }
  },
  save: (snapshot) => {
    if (snapshot.partial) return
    const prefix = root.length + 1
    const folders: Array<Line> = []
    // A folder too recent to trust is left out: the next walk reads it.
    for (const [path, f] of snapshot.folders) if (f.stamp !== undefined) folders.push([path === root ? "" : path.slice(prefix), f.stamp, f.git ? 1 : 0, f.subdirs])
    const tmp = `${file}.${process.pid}.tmp`
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
      writeFileSync(tmp, JSON.stringify({ version: VERSION, root, folders }))
      renameSync(tmp, file)
    } catch {
      rmSync(tmp, { force: true })
    }
  },
})

/** Where the store of the project whose private state folder is `stateDir` lives. */
export const nestedGitFile = (stateDir: string): string => join(stateDir, "nested-git.json")
