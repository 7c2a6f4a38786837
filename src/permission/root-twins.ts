import { realpathSync } from "node:fs"
import { isRecord } from "../protocol/is-record.ts"

const twinned = new WeakMap<object, { readonly root: string; readonly out: Record<string, unknown> }>()

const GLOB = /[*?[\]{}]/

/**
 * An absolute pattern with its leading folders (up to the first one with a wildcard) as they really are: the
 * project may be reached through a link (`~/app -> /data/app`, macOS's `/tmp -> /private/tmp`), and the rule
 * written either way must name the same place. The longest part that exists is resolved; the rest is kept.
 */
export const realLead = (pattern: string): string => {
  const parts = pattern.split("/")
  const wild = parts.findIndex((s) => GLOB.test(s))
  const lead = wild < 0 ? parts : parts.slice(0, wild)
  const rest = wild < 0 ? [] : parts.slice(wild)
  for (let n = lead.length; n > 1; n--) {
    try {
      const real = realpathSync(lead.slice(0, n).join("/") || "/")
      return [real === "/" ? "" : real, ...lead.slice(n), ...rest].join("/")
    } catch {
      // this part does not exist (yet): try the folder above it
    }
  }
  return pattern
}

/** `p` relative to the first of `prefixes` it lies under (each ending in `/`), or undefined. */
const under = (p: string, prefixes: ReadonlyArray<string>): string | undefined => {
  const prefix = prefixes.find((x) => p.startsWith(x) && p.length > x.length)
  return prefix === undefined ? undefined : p.slice(prefix.length)
}

const realOr = (p: string) => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/**
 * `permission` with a root-relative twin (`./secret.txt`) beside each deny or ask rule written as an absolute path
 * inside the project (`/home/me/app/secret.txt`): a call's paths are matched as root-relative, so the rule as written
 * would hold for no file of the project. Both the root and the rule's path are taken as written and with links
 * resolved. Only rules that narrow get one (an absolute allow rule stays as written). The same object for the same
 * `permission` (made once per settings, not per call: the realpath calls are not repeated).
 */
export const withRootTwins = (permission: unknown, root: string | undefined): unknown => {
  if (root === undefined || !isRecord(permission)) return permission
  const known = twinned.get(permission)
  if (known?.root === root) return known.out
  const out: Record<string, unknown> = {}
  for (const [tool, entry] of Object.entries(permission)) {
    if (!isRecord(entry)) {
      out[tool] = entry
      continue
    }
    const copy: Record<string, unknown> = { ...entry }
    for (const [pattern, level] of Object.entries(entry)) {
      const p = pattern.trim()
      if ((level !== "deny" && level !== "ask") || !p.startsWith("/")) continue
      const rel = intoRoot(p, root)
      if (rel === undefined) continue
      const twin = `./${rel}`
      if (copy[twin] === undefined || (copy[twin] !== "deny" && level === "deny")) copy[twin] = level
    }
    out[tool] = copy
  }
  twinned.set(permission, { root, out })
  return out
}

/** An absolute pattern's path below the project root (written through a link or not), or undefined when it names a place outside. */
export const intoRoot = (pattern: string, root: string): string | undefined => {
  const slash = (r: string) => (r.endsWith("/") ? r : `${r}/`)
  const prefixes = [...new Set([slash(root), slash(realOr(root))])]
  return under(pattern, prefixes) ?? under(realLead(pattern), prefixes)
}
