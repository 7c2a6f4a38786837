import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs"
import { dirname, isAbsolute, join, resolve, sep } from "node:path"
import { gitConfigIncludes, parseGitConfig } from "../workspace/git-config-file.ts"
import { fromHome } from "../workspace/home-path.ts"

/**
 * The paths of a project that make code run later: the one list both the command sandbox (read-only mounts and
 * stand-ins, policy.ts) and anvil's own file tools (write, edit, multiedit, patch, a plugin's `files.write`; see
 * `protectedPathOf`) hold, so what a confined command may not change no file tool changes either.
 */

/**
 * Files inside the project that make something run code later (git hooks and
 * config, anvil's own folder and settings, MCP and Claude Code settings):
 * read-only inside the sandbox even though the rest of the root is writable.
 * A trailing slash marks a folder (what a stand-in for a missing one is).
 */
export const BUILTIN_PROTECTED: ReadonlyArray<string> = [".git/hooks/", ".git/config", ".anvil/", "anvil.json", ".mcp.json", ".claude/", ".agents/"]

/**
 * Files in the project that other programs run code from later, by tool:
 * where one of a group exists, the whole group is read-only (a missing one
 * gets a stand-in, so lefthook-local.yml cannot be added beside lefthook.yml);
 * `always` groups are held whether or not they exist. Hook managers' scripts
 * and settings are git hooks in all but name: husky runs `.husky/<hook>`,
 * pre-commit, lefthook and overcommit run the commands their files list, at
 * the user's next commit. direnv runs `.envrc` on `cd`; VS Code runs tasks and
 * programs its workspace settings name.
 */
export const PROTECTED_GROUPS: ReadonlyArray<{ readonly always?: boolean; readonly paths: ReadonlyArray<string> }> = [
  { paths: [".husky/"] },
  { paths: [".pre-commit-config.yaml"] },
  {
    paths: ["lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", "lefthook-local.yaml", ".lefthook-local.yml", ".lefthook-local.yaml", ".lefthook/", ".lefthook-local/"],
  },
  { paths: [".overcommit.yml"] },
  { paths: [".envrc"] },
  { always: true, paths: [".vscode/"] },
]

/**
 * Files in a git folder that point git at other config and hooks: `commondir`
 * moves config, hooks, refs and objects elsewhere, `config.worktree` adds
 * config. git fails on an empty stand-in, so a missing one is not held by a
 * mount: the command may make it, and anvil removes it when the command ends.
 */
const GIT_REDIRECTS: ReadonlyArray<string> = ["commondir", "config.worktree"]

export const real = (p: string): string | undefined => {
  try {
    return realpathSync(p)
  } catch {
    return undefined
  }
}

export const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

export const exists = (p: string): boolean => {
  try {
    lstatSync(p)
    return true
  } catch {
    return false
  }
}

/** `~/x` (or `$HOME/x`, workspace/home-path.ts) → home/x; relative → against `base`. */
export const expandPath = (p: string, base: string, home: string | undefined): string => {
  const homed = fromHome(p, home)
  return homed !== undefined ? homed : isAbsolute(p) ? p : resolve(base, p)
}

export const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep)

/**
 * `core.hooksPath` set in the git config text `text` (husky and the like
 * point it into the working tree, where hooks would otherwise be writable):
 * absolute, or undefined when unset or unreadable.
 */
const hooksPathIn = (text: string | undefined, root: string, home: string | undefined): string | undefined => {
  const configured = text === undefined ? undefined : parseGitConfig(text).get("core.hookspath")
  return configured ? expandPath(configured, root, home) : undefined
}

/** A file's text, or undefined when it cannot be read: each config file is read once however often it is asked for. */
const textReader = (): ((file: string) => string | undefined) => {
  const texts = new Map<string, string | undefined>()
  return (file) => {
    if (texts.has(file)) return texts.get(file)
    let text: string | undefined
    try {
      text = readFileSync(file, "utf8")
    } catch {
      text = undefined
    }
    texts.set(file, text)
    return text
  }
}

/**
 * The files git reads as config through `include.path` / `includeIf.*.path`
 * of `configFiles`, followed (a relative path is taken from the including
 * file's folder): absolute paths. A project that includes a file from its
 * working tree would otherwise let a command set `core.fsmonitor` there.
 */
const includedConfigs = (configFiles: ReadonlyArray<string>, home: string | undefined, textOf: (file: string) => string | undefined): Array<string> => {
  const found: Array<string> = []
  const queue = [...configFiles]
  // git stops at a depth of 10; a cycle or a long chain ends here too.
  for (let i = 0; i < queue.length && found.length < 64; i++) {
    const file = queue[i]!
    const text = textOf(file)
    if (text === undefined) continue
    for (const inc of gitConfigIncludes(text)) {
      const abs = expandPath(inc, dirname(file), home)
      if ((inc.startsWith("~") && !home) || found.includes(abs) || configFiles.includes(abs)) continue
      found.push(abs)
      queue.push(abs)
    }
  }
  return found
}

/**
 * The git folder of a checkout whose `.git` is a file (a worktree or a
 * submodule): its own folder and the shared one, so `git commit` can write
 * there while their hooks and config stay read-only.
 */
const linkedGitDirs = (root: string): { gitDir: string; commonDir: string } | undefined => {
  const dotGit = join(root, ".git")
  try {
    if (!lstatSync(dotGit).isFile()) return undefined
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))
    if (!m) return undefined
    const gitDir = real(resolve(root, m[1]!.trim()))
    if (!gitDir) return undefined
    let commonDir = gitDir
    try {
      commonDir = real(resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim())) ?? gitDir
    } catch {
      // not a worktree: the git folder is its own
    }
    return { gitDir, commonDir }
  } catch {
    return undefined
  }
}

/** A project's protected paths as they are on disk now, with the git folders they were found through. */
export interface ProjectProtection {
  /**
   * Root-relative or absolute paths, a trailing `/` marking a folder: the built-in ones, the groups in use, what
   * the git config points at (hooks path, included files, a linked checkout's shared hooks and config), `extra`.
   */
  readonly entries: ReadonlyArray<string>
  /** Whether `.git` is a folder (its `.git/…` entries only count then). */
  readonly gitIsDir: boolean
  /** The git folder of a checkout whose `.git` is a file (a worktree, a submodule). */
  readonly linked: { readonly gitDir: string; readonly commonDir: string } | undefined
  readonly gitDir: string | undefined
  readonly commonDir: string | undefined
  /** Git redirects (see GIT_REDIRECTS) that do not exist and must not come to. */
  readonly mustStayAbsent: ReadonlyArray<string>
}

/** Finds the protected paths of the project at `root` (`extra`: `sandbox.protected`). */
export const projectProtection = (root: string, home: string | undefined, extra: ReadonlyArray<string>): ProjectProtection => {
  const entries: Array<string> = [...BUILTIN_PROTECTED, ...PROTECTED_GROUPS.filter((g) => g.always || g.paths.some((e) => exists(join(root, e)))).flatMap((g) => g.paths)]
  const mustStayAbsent: Array<string> = []
  const linked = linkedGitDirs(root)
  const gitIsDir = isDir(join(root, ".git"))
  const gitDir = linked?.gitDir ?? (gitIsDir ? join(root, ".git") : undefined)
  const commonDir = linked?.commonDir ?? gitDir
  // The `.git` file itself says where the git folder is: rewritten, it would name one the command made.
  if (linked) entries.push(".git", join(linked.commonDir, "hooks/"), join(linked.commonDir, "config"))
  if (gitDir && commonDir) {
    for (const name of GIT_REDIRECTS) {
      const p = join(gitDir, name)
      if (exists(p)) entries.push(p)
      else mustStayAbsent.push(p)
    }
    // Submodules' own git folders (their hooks and config), where the repository has any.
    if (isDir(join(commonDir, "modules"))) entries.push(join(commonDir, "modules/"))
    const configs = [join(commonDir, "config"), join(gitDir, "config.worktree")]
    const textOf = textReader()
    const included = includedConfigs(configs, home, textOf)
    entries.push(...included)
    for (const file of [...configs, ...included]) {
      const hooksPath = hooksPathIn(textOf(file), root, home)
      if (hooksPath) entries.push(`${hooksPath}/`)
    }
  }
  // .git/… is protected where .git is a folder; without one there are no hooks to protect yet.
  return { entries: [...entries, ...extra].filter((e) => gitIsDir || !e.startsWith(".git/")), gitIsDir, linked, gitDir, commonDir, mustStayAbsent }
}

/**
 * Judges paths against a project's protection: `coveringEntry(paths)` is the protected entry (as listed:
 * `.git/hooks/`, `.vscode/`, a `sandbox.protected` one) that covers any of `paths` (absolute: as named and with
 * links followed), or undefined. An entry counts by its own name and by where it leads when it is a link (found
 * once, when the guard is made, so a call judging many paths follows each entry's links once); names are compared
 * without case, as a case-insensitive file system (and a program reading it there) would.
 */
export interface ProtectionGuard {
  readonly protection: ProjectProtection
  readonly coveringEntry: (paths: ReadonlyArray<string>) => string | undefined
}

export const protectionGuard = (protection: ProjectProtection, root: string, home: string | undefined): ProtectionGuard => {
  const places = [...protection.entries, ...protection.mustStayAbsent].map((entry) => {
    const abs = expandPath(entry.endsWith("/") ? entry.slice(0, -1) : entry, root, home)
    return { entry, places: [abs, real(abs)].filter((p): p is string => p !== undefined).map((p) => p.toLowerCase()) }
  })
  const coveringEntry = (paths: ReadonlyArray<string>): string | undefined => {
    const wanted = paths.map((p) => p.toLowerCase())
    return places.find((e) => e.places.some((place) => wanted.some((p) => inside(p, place))))?.entry
  }
  return { protection, coveringEntry }
}
