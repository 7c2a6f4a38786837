import { realpathSync } from "node:fs"
import { isRecord } from "../protocol/is-record.ts"
import { fromHome } from "../workspace/home-path.ts"
import { simpleWildcard } from "../workspace/wildcard.ts"

const twinned = new WeakMap<object, { readonly root: string; readonly home: string | undefined; readonly out: Record<string, unknown> }>()

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

/** Where each pattern a rule was rewritten to came from, as written (`./secret.txt` ← `/home/me/app/secret.txt`, `/home/me/.ssh/**` ← `~/.ssh/**`). */
const origins = new Map<string, string>()

/** The pattern as written in the settings for one anvil derived from it (a twin or an expanded home form); undefined for one written so. */
export const writtenPattern = (pattern: string): string | undefined => origins.get(pattern)

/**
 * A path pattern with its home or absolute form spelt out, as Claude Code's rules write them: `~/x`, `$HOME/x` (and
 * `~` alone) are the home folder's (workspace/home-path.ts), `//x` is the absolute `/x`. A `/x` stays the absolute
 * path it always was in anvil's settings (Claude Code reads it from the settings file's folder: there, write `./x`).
 */
export const expandedPattern = (pattern: string, home: string | undefined): string => {
  const p = pattern.trim()
  return fromHome(p, home) ?? (p.startsWith("//") ? p.replace(/^\/+/, "/") : p)
}

/**
 * `permission` with every rule's path written out (expandedPattern) and a root-relative twin beside each deny or ask
 * rule written as an absolute path that reaches into the project: `/home/me/app/secret.txt` → `./secret.txt`,
 * `/**\/secret*` → `./**\/secret*`, `/home/*\/app/keys/` → `./keys/`; a call's paths are matched as root-relative, so
 * the rule as written would hold for no file of the project. Both the root and the rule's leading folders are taken as
 * written and with links resolved. Only rules that narrow get one (an absolute allow rule stays for paths outside).
 * The same object for the same `permission`, root and home (made once per settings, not per call).
 */
export const withRootTwins = (permission: unknown, root: string | undefined, home?: string): unknown => {
  if (root === undefined || !isRecord(permission)) return permission
  const known = twinned.get(permission)
  if (known?.root === root && known.home === home) return known.out
  const out: Record<string, unknown> = {}
  for (const [tool, entry] of Object.entries(permission)) {
    if (!isRecord(entry)) {
      out[tool] = entry
      continue
    }
    const copy: Record<string, unknown> = {}
    // The stricter of two rules that come to the same pattern stays (`~/x` and its absolute form).
    const put = (pattern: string, level: unknown, written: string) => {
      if (pattern !== written && !origins.has(pattern)) origins.set(pattern, written)
      if (copy[pattern] === undefined || copy[pattern] === "allow" || (copy[pattern] === "ask" && level === "deny")) copy[pattern] = level
    }
    for (const [written, level] of Object.entries(entry)) put(written === "*" ? written : expandedPattern(written, home), level, written)
    for (const [pattern, level] of Object.entries(copy)) {
      if ((level !== "deny" && level !== "ask") || !pattern.startsWith("/")) continue
      const written = origins.get(pattern) ?? pattern
      for (const rest of intoRootAll(pattern, root)) put(`./${rest === "" ? "**" : rest}`, level, written)
    }
    out[tool] = copy
  }
  if (origins.size > 4096) origins.clear()
  twinned.set(permission, { root, home, out })
  return out
}

/** The segments of `path` an absolute pattern's leading segments (up to `**`) can take, and what of the pattern is left: each a pattern below `path`. */
const residuals = (pattern: string, path: string): ReadonlyArray<string> => {
  // A trailing `/` is the folder with all it holds: `/w/` reaches a root at `/w/app` as `/w/**` does.
  const ps = (pattern.endsWith("/") ? `${pattern}**` : pattern).split("/").slice(1)
  const close = (states: Iterable<number>) => {
    const all = new Set(states)
    for (const i of all) if (ps[i] === "**") all.add(i + 1)
    return all
  }
  let states = close([0])
  for (const seg of path.split("/").filter((x) => x !== "")) {
    const next = new Set<number>()
    for (const i of states) {
      if (i >= ps.length) continue
      if (ps[i] === "**") next.add(i)
      else if (ps[i] !== "" && simpleWildcard(ps[i]!.normalize("NFC"), { paths: true }).test(seg.normalize("NFC"))) next.add(i + 1)
    }
    states = close(next)
    if (states.size === 0) return []
  }
  // "" left: the pattern names the root itself (or a folder holding it). A folder's `/**` is written back as `/`.
  const rest = (i: number) => {
    const r = ps.slice(i).join("/")
    return pattern.endsWith("/") && r.endsWith("/**") ? r.slice(0, -2) : r
  }
  return [...new Set([...states].map(rest))]
}

/**
 * What an absolute pattern matches below the project root, as root-relative patterns ("" for the root itself): the
 * root and the pattern's leading folders taken as written and with links resolved. Empty when it names only places outside.
 */
export const intoRootAll = (pattern: string, root: string): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const r of new Set([root, realOr(root)])) for (const p of new Set([pattern, realLead(pattern)])) for (const rest of residuals(p, r)) found.add(rest)
  return [...found]
}

/** An absolute pattern's path below the project root (written through a link or not), or undefined when it names a place outside. */
export const intoRoot = (pattern: string, root: string): string | undefined => {
  const slash = (r: string) => (r.endsWith("/") ? r : `${r}/`)
  const prefixes = [...new Set([slash(root), slash(realOr(root))])]
  return under(pattern, prefixes) ?? under(realLead(pattern), prefixes)
}
