import { lstatSync, mkdirSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * Where anvil keeps its own state for a project: `.anvil/<sub>`
 * under the root, but only while `.anvil` and `.anvil/<sub>` are real folders
 * inside the root. A cloned repository can ship `.anvil` (or
 * `.anvil/tool-output`) as a symbolic link; following it would put anvil's
 * writes, and the folders the sandbox trusts, wherever it points. Then the
 * state goes to a private folder in the user's cache instead, and the user is
 * told once.
 */

export type Env = Readonly<Record<string, string | undefined>>

const realOr = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/**
 * Claude Code's config folder: `$CLAUDE_CONFIG_DIR` when absolute, else `~/.claude`; undefined without a home. One rule
 * for the plugin discovery that runs its hooks and the command sandbox that keeps it read-only.
 */
export const claudeConfigFolder = (home: string | undefined, env: Env): string | undefined =>
  env.CLAUDE_CONFIG_DIR?.startsWith("/") ? env.CLAUDE_CONFIG_DIR : home ? join(home, ".claude") : undefined

/**
 * anvil's folder in the user's cache: `$XDG_CACHE_HOME/anvil` when that is absolute, else `~/.cache/anvil`.
 * node:os is looked up only without HOME: loading it costs every start about half a millisecond.
 */
export const userCacheDir = (env: Env = process.env): string =>
  join(env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith("/") ? env.XDG_CACHE_HOME : join(env.HOME || process.getBuiltinModule("node:os").homedir(), ".cache"), "anvil")

/** $XDG_CONFIG_HOME when it is set to an absolute path; empty or relative, it is ignored (as the XDG base directory rules say). */
export const xdgConfigHome = (env: Env): string | undefined =>
  env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith("/") ? env.XDG_CONFIG_HOME : undefined

/** The user's config folder: {@link xdgConfigHome}, else `~/.config`; undefined without either. */
export const userConfigHome = (env: Env): string | undefined => {
  const home = env.HOME || env.USERPROFILE
  return xdgConfigHome(env) ?? (home ? join(home, ".config") : undefined)
}

/**
 * anvil's own folders outside the project, of every project at once: its cache (`$XDG_CACHE_HOME/anvil`,
 * `~/.cache/anvil`: each project's read-rule walk and nested-git stamps, the sandbox probe's and the settings checks'
 * memory) and its settings (`$XDG_CONFIG_HOME/anvil`, `~/.config/anvil`: your own anvil.json, trust.json, plugins).
 * Both places are named whichever the environment picks, since another anvil may run with the other.
 */
export const anvilStateFolders = (home: string | undefined, env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const absolute = (v: string | undefined) => (v !== undefined && v.startsWith("/") ? v : undefined)
  const bases = [absolute(env.XDG_CACHE_HOME), absolute(env.XDG_CONFIG_HOME), ...(home ? [join(home, ".cache"), join(home, ".config")] : [])]
  return [...new Set(bases.flatMap((b) => (b === undefined ? [] : [join(b, "anvil")])))]
}

/** The private per-project folder in the user's cache (`$XDG_CACHE_HOME/anvil/projects/<hash>`). */
export const privateStateDir = (root: string, env: Env = process.env): string =>
  join(userCacheDir(env), "projects", new Bun.CryptoHasher("sha256").update(realOr(root)).digest("hex").slice(0, 16))

type Kind = "missing" | "folder" | "other"

const kindOf = (p: string): Kind => {
  try {
    // No exception for a missing path: building one costs more than the stat.
    const st = lstatSync(p, { throwIfNoEntry: false })
    if (st === undefined) return "missing"
    return st.isDirectory() && realpathSync(p) === p ? "folder" : "other"
  } catch (e) {
    return (e as { code?: string }).code === "ENOENT" ? "missing" : "other"
  }
}

const noted = new Set<string>()
const noteOnce = (key: string, text: string) => {
  if (noted.has(key)) return
  noted.add(key)
  process.stderr.write(`anvil: ${text}\n`)
}

/** Where `.anvil/<sub>` would be, without creating anything: the cache folder when `.anvil` or it is not a real folder. */
export const plannedStateDir = (root: string, sub: string, env: Env = process.env): string => {
  const realRoot = realOr(root)
  const anvil = join(realRoot, ".anvil")
  const a = kindOf(anvil)
  if (a === "other") return join(privateStateDir(realRoot, env), sub)
  if (a === "missing") return join(anvil, sub)
  return kindOf(join(anvil, sub)) === "other" ? join(privateStateDir(realRoot, env), sub) : join(anvil, sub)
}

const makeReal = (p: string): boolean => {
  if (kindOf(p) === "missing") {
    try {
      mkdirSync(p)
    } catch {
      // raced: judged below
    }
  }
  return kindOf(p) === "folder"
}

/**
 * Makes and returns the state folder `sub` for the project at `root`:
 * `.anvil/<sub>` (`.anvil` gets a `.gitignore` of `*`, so `git status` stays
 * clean) when both are real folders inside the root, else the private cache
 * folder, with a one-time note on stderr.
 */
export const ensureStateDir = (root: string, sub: string, env: Env = process.env): string => {
  const realRoot = realOr(root)
  const anvil = join(realRoot, ".anvil")
  if (makeReal(anvil)) {
    writeIgnoreAll(anvil)
    const dir = join(anvil, sub)
    if (makeReal(dir)) {
      writeIgnoreAll(dir)
      return dir
    }
  }
  const fallback = join(privateStateDir(realRoot, env), sub)
  mkdirSync(fallback, { recursive: true, mode: 0o700 })
  noteOnce(
    realRoot,
    `${kindOf(anvil) === "folder" ? `.anvil/${sub}` : ".anvil"} in ${realRoot} is not a real folder inside the project (a symbolic link?); ` +
      `anvil never follows it and keeps its state in ${privateStateDir(realRoot, env)} instead.`,
  )
  return fallback
}

/** Drops a `.gitignore` of `*` into a state folder, created exclusively (a planted link is never written through). */
const writeIgnoreAll = (dir: string) => {
  try {
    writeFileSync(join(dir, ".gitignore"), "*\n", { flag: "wx" })
  } catch {
    // present already
  }
}
