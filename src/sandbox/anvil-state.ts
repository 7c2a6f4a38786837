import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { inside, real } from "./protected-paths.ts"

/** An empty stand-in for a missing path (policy.ts StandIn). */
interface StandIn {
  readonly path: string
  readonly kind: "file" | "dir"
}

/**
 * Where a missing path `abs` gets its stand-in so that a command cannot make it: the first missing folder on the way
 * (nothing can be made under it), when a writable folder holds its parent; undefined when no command could make it.
 */
export const standInFor = (abs: string, kind: StandIn["kind"], writable: ReadonlyArray<string>): StandIn | undefined => {
  let target = abs
  let k = kind
  while (!existsSync(dirname(target)) && dirname(target) !== target) {
    target = dirname(target)
    k = "dir"
  }
  const parent = real(dirname(target))
  return parent && writable.some((w) => inside(parent, w)) ? { path: join(parent, target.slice(dirname(target).length + 1)), kind: k } : undefined
}

/**
 * What keeps anvil's state folders out of a command's reach whatever `sandbox.writable` says: a planted read-rule
 * walk or nested-git record would hide a secret from another project's rules or a repository from its protection, a
 * planted anvil.json or trust.json would loosen every later session. An existing folder that a writable one holds,
 * or that holds a writable one (`"writable": ["~/.cache/anvil/projects"]`), is bound read-only over it; a missing
 * one where a command could make it gets a stand-in. A folder holding the project or the session's folder is left
 * alone (it cannot be read-only without them).
 */
export const stateGuards = (
  folders: ReadonlyArray<string>,
  writable: ReadonlyArray<string>,
  keep: ReadonlyArray<string>,
): { readonly readOnly: ReadonlyArray<string>; readonly standIns: ReadonlyArray<StandIn>; readonly guarded: ReadonlyArray<string> } => {
  const readOnly: Array<string> = []
  const standIns: Array<StandIn> = []
  const guarded: Array<string> = []
  for (const folder of folders) {
    const existing = real(folder)
    const at = existing ?? folder
    if (keep.some((k) => inside(k, at))) continue
    if (existing === undefined) {
      const s = standInFor(folder, "dir", writable)
      if (s) {
        standIns.push(s)
        guarded.push(folder)
      }
    } else if (writable.some((w) => inside(existing, w) || inside(w, existing))) {
      readOnly.push(existing)
      guarded.push(existing)
    }
  }
  return { readOnly, standIns, guarded }
}
