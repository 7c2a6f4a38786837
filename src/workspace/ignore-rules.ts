import { Effect } from "effect"
import { existsSync, readFileSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { FileSystem } from "./file-system.ts"
import { Path } from "effect/Path"
import { IgnorePatterns, type IgnoreVerdict } from "./gitignore.ts"
import { keepBelowTopTier } from "./jit-tier.ts"
import { fsPath, hasEscapedBytes, resolveKeeping } from "./path-bytes.ts"
import type { PlatformError } from "effect/PlatformError"

/** The platform's error, or the thrown one of a read by bytes: either way the file is not there to read. */
type Unreadable = { readonly _tag: "Unreadable" } | PlatformError

/** A path below `dir`; escaped bytes kept (Bun's path.join turns them into U+FFFD). */
const below = (dir: string, ...names: Array<string>): string => names.reduce((at, name) => resolveKeeping(at, name, join), dir)

/** A file's text. A path whose name is not UTF-8 (escaped bytes, path-bytes.ts) is read by its bytes: effect's FileSystem would look for the name with U+FFFD in it and find nothing. */
const readText = (path: string): Effect.Effect<string, Unreadable, FileSystem> =>
  hasEscapedBytes(path)
    ? Effect.try({ try: () => readFileSync(fsPath(path), "utf8"), catch: () => ({ _tag: "Unreadable" }) as const })
    : Effect.flatMap(FileSystem, (fs) => fs.readFileString(path))

/** Whether a path is a folder (by its bytes when its name is not UTF-8); fails when nothing is there. */
const isFolderAt = (path: string): Effect.Effect<boolean, Unreadable, FileSystem> =>
  hasEscapedBytes(path)
    ? Effect.try({ try: () => statSync(fsPath(path)).isDirectory(), catch: () => ({ _tag: "Unreadable" }) as const })
    : Effect.flatMap(FileSystem, (fs) => Effect.map(fs.stat(path), (info) => info.type === "Directory"))

/**
 * Which files a search skips, the way git and ripgrep decide it:
 *
 * - every directory's `.gitignore`, `.ignore` and `.rgignore` (ripgrep's
 *   precedence: `.rgignore` over `.ignore` over `.gitignore` over the
 *   repository's `.git/info/exclude`; within one kind the deepest file that
 *   has a matching pattern decides, and within a file the last matching
 *   pattern, so `!negations` re-include);
 * - `.gitignore` rules stop at a nested repository's boundary (a directory
 *   holding `.git`);
 * - each path is judged by its own name only: the walk never enters an
 *   ignored directory, which is how git keeps a file under an excluded
 *   directory from being re-included;
 * - the default list of directories no search enters (dependency, build and
 *   tool folders), unless ignored entries are asked for.
 */

export { DEFAULT_IGNORED_DIRS } from "./default-ignored.ts"

const RGIGNORE = ".rgignore"
const IGNORE = ".ignore"
const GITIGNORE = ".gitignore"

/** The ignore files of one directory, linked to its parent's. */
export interface DirRules {
  /** Absolute POSIX-style path of the directory these rules are relative to. */
  readonly dir: string
  readonly parent: DirRules | undefined
  readonly custom?: IgnoreFile
  readonly ignore?: IgnoreFile
  readonly git?: IgnoreFile
  /** The repository's `.git/info/exclude`, for a directory that holds `.git`. */
  readonly exclude?: IgnoreFile
  /** The directory holds `.git`: `.gitignore` rules from above it do not apply inside. */
  readonly hasGit: boolean
  /** Whether this directory or one above has a `.rgignore` / `.ignore` (lets the common case skip those passes). */
  readonly anyCustom: boolean
  readonly anyIgnore: boolean
}

/** One ignore file's patterns. */
export interface IgnoreFile {
  readonly ig: IgnorePatterns
  /** Every pattern matches names, not paths (no `/` but a trailing one): the entry's name is all a test needs. */
  readonly basenameOnly: boolean
}

type Verdict = IgnoreVerdict

/** The path of `name` in directory `dir`, relative to the rules' directory `base` (all absolute, `dir` inside `base`). */
const relativeTo = (base: string, dir: string, name: string): string => {
  if (dir.length === base.length) return name
  const rel = base === "/" ? dir.slice(1) : dir.slice(base.length + 1)
  return `${rel}/${name}`
}

/** Tests one path against the ignore files of one kind, deepest first, each by the path's own name only (the walk handles parents by pruning). */
const deepest = (
  rules: DirRules | undefined,
  pick: (r: DirRules) => IgnoreFile | undefined,
  dir: string,
  name: string,
  isDir: boolean,
  stopAtGit: boolean,
): Verdict => {
  for (let r = rules; r !== undefined; r = r.parent) {
    const file = pick(r)
    if (file !== undefined) {
      const verdict = file.ig.judge(file.basenameOnly ? name : relativeTo(r.dir, dir, name), isDir)
      if (verdict !== undefined) return verdict
    }
    if (stopAtGit && r.hasGit) break
  }
  return undefined
}

const pickCustom = (r: DirRules) => r.custom
const pickIgnore = (r: DirRules) => r.ignore
const pickGit = (r: DirRules) => r.git
const pickExclude = (r: DirRules) => r.exclude

/** Whether the entry at absolute path `abs` is ignored by the rules of its directory and the directories above. */
export const isIgnoredBy = (rules: DirRules | undefined, abs: string, isDir: boolean): boolean => {
  if (rules === undefined) return false
  const cut = Math.max(abs.lastIndexOf("/"), abs.lastIndexOf("\\"))
  return isIgnoredIn(rules, cut <= 0 ? abs.slice(0, cut + 1) : abs.slice(0, cut), abs.slice(cut + 1), isDir)
}

/** {@link isIgnoredBy} for the entry `name` of directory `dir` (absolute): the walk's form, no path to build. */
export const isIgnoredIn = (rules: DirRules | undefined, dir: string, name: string, isDir: boolean): boolean => {
  if (rules === undefined) return false
  const verdict =
    (rules.anyCustom ? deepest(rules, pickCustom, dir, name, isDir, false) : undefined) ??
    (rules.anyIgnore ? deepest(rules, pickIgnore, dir, name, isDir, false) : undefined) ??
    deepest(rules, pickGit, dir, name, isDir, true) ??
    deepest(rules, pickExclude, dir, name, isDir, true)
  return verdict === "ignored"
}

/** The patterns of one ignore file; undefined when it has none (comments and blank lines only). */
const compile = (text: string): IgnoreFile | undefined => {
  const patterns = text
    .split("\n")
    .map((line) => line.replace(/\r$/, ""))
    .filter((line) => line.trim() !== "" && !line.startsWith("#"))
  if (patterns.length === 0) return undefined
  const basenameOnly = patterns.every((line) => {
    const body = line.replace(/^!/, "").replace(/\s+$/, "").replace(/\/+$/, "")
    return !body.includes("/")
  })
  const ig = IgnorePatterns.parse(text)
  return ig.size === 0 ? undefined : { ig, basenameOnly }
}

/**
 * The git folder shared by a linked worktree (or a submodule) whose `.git` is a
 * file: `gitdir: <folder>`, and that folder's `commondir` when it has one. Its
 * `info/exclude` applies to the worktree, as git and ripgrep read it.
 */
const linkedGitDir = (dir: string) =>
  Effect.gen(function* () {
    const path = yield* Path
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(yield* readText(below(dir, ".git")))
    if (!pointer) return yield* Effect.fail("no gitdir")
    // A submodule's pointer is relative (`../.git/modules/sub`): resolved keeping the bytes of a folder whose name is
    // not UTF-8 (path.resolve would turn them into U+FFFD).
    const gitDir = resolveKeeping(dir, pointer[1]!, path.resolve)
    const common = yield* readText(below(gitDir, "commondir")).pipe(Effect.option)
    return common._tag === "Some" ? resolveKeeping(gitDir, common.value.trim(), path.resolve) : gitDir
  })

/**
 * Reads the ignore files of `dir` and links them under `parent`. `present` is
 * the directory's listing when the caller has it (no read is attempted for a
 * file that is not there); without it every candidate is tried. A directory
 * without ignore files or `.git` adds nothing and returns `parent` itself.
 */
export const loadDirRules = Effect.fn("loadDirRules")(function* (
  dir: string,
  parent: DirRules | undefined,
  present?: ReadonlySet<string>,
) {
  const has = (name: string) => present === undefined || present.has(name)
  if (!has(RGIGNORE) && !has(IGNORE) && !has(GITIGNORE) && !has(".git")) return parent
  const read = (name: string) =>
    has(name)
      ? readText(below(dir, name)).pipe(
          Effect.map(compile),
          Effect.orElseSucceed(() => undefined),
        )
      : Effect.succeed(undefined)
  const [custom, ignoreFile, git] = yield* Effect.all([read(RGIGNORE), read(IGNORE), read(GITIGNORE)], {
    concurrency: "unbounded",
  })
  let hasGit = false
  let exclude: IgnoreFile | undefined
  if (has(".git")) {
    const info = yield* isFolderAt(below(dir, ".git")).pipe(Effect.option)
    if (info._tag === "Some") {
      hasGit = true
      const gitDir = info.value ? Effect.succeed(below(dir, ".git")) : linkedGitDir(dir)
      exclude = yield* gitDir.pipe(
        Effect.flatMap((d) => readText(below(d, "info", "exclude"))),
        Effect.map(compile),
        Effect.orElseSucceed(() => undefined),
      )
    }
  }
  if (!custom && !ignoreFile && !git && !hasGit) return parent
  const rules: DirRules = {
    dir,
    parent,
    hasGit,
    anyCustom: custom !== undefined || (parent?.anyCustom ?? false),
    anyIgnore: ignoreFile !== undefined || (parent?.anyIgnore ?? false),
    ...(custom ? { custom } : {}),
    ...(ignoreFile ? { ignore: ignoreFile } : {}),
    ...(git ? { git } : {}),
    ...(exclude ? { exclude } : {}),
  }
  return rules
})

/**
 * Whether `root` lies in a git repository: it, or a folder above it, holds
 * `.git`. Inside one, `.gitignore` rules stop where git stops them (at the
 * repository's top and at nested repositories); outside, anvil applies the
 * project's own `.gitignore` files all the same and none from above the root.
 */
export const insideRepository = (root: string): boolean => repositoryTop(root) !== undefined

/** The folder holding `.git` at or above `root` (the repository the root lies in); undefined outside any. */
const repositoryTop = (root: string): string | undefined => {
  let current = root
  for (let depth = 0; depth < 64; depth++) {
    if (existsSync(join(current, ".git"))) return current
    const up = dirname(current)
    if (up === current) return undefined
    current = up
  }
  return undefined
}

/**
 * The rules in force at `dir` from the directories above it: from the
 * repository's top (when the project root lies inside a larger repository)
 * or the project root, down to `dir`'s parent. `dir`'s own files are not
 * included: the walk reads them when it lists `dir`.
 */
export const ancestorRules = Effect.fn("ancestorRules")(function* (root: string, dir: string) {
  const path = yield* Path
  const chain: Array<string> = []
  // The project root's ancestors, from the top of the repository that contains it.
  const top = repositoryTop(root)
  if (top !== undefined && top !== root) {
    const above: Array<string> = []
    for (let current = path.dirname(root); ; current = path.dirname(current)) {
      above.push(current)
      if (current === top) break
    }
    chain.push(...above.reverse())
  }
  if (dir !== root) {
    // Both are real paths: `dir` below `root` starts with it (compared as they are: path.relative would turn bytes
    // that are not UTF-8 into U+FFFD).
    const rel = dir.startsWith(`${root}/`) || root === "/" ? dir.slice(root === "/" ? 1 : root.length + 1) : path.relative(root, dir)
    if (!rel.startsWith("..") && !path.isAbsolute(rel)) {
      let current = root
      chain.push(current)
      const parts = rel.split(path.sep)
      for (const part of parts.slice(0, -1)) {
        current = below(current, part)
        chain.push(current)
      }
    }
  }
  let rules: DirRules | undefined
  // Above the repository, as ripgrep reads them: its own .ignore and .rgignore files (a user's ~/.ignore), never a .gitignore.
  if (top !== undefined) for (const d of ignoreFilesAbove(top)) rules = yield* loadDirRules(d.dir, rules, d.present)
  for (const d of chain) rules = yield* loadDirRules(d, rules)
  return rules
})

/** The folders above `from`, the topmost first, that hold a `.ignore` or `.rgignore`, with which of the two. */
const ignoreFilesAbove = (from: string): Array<{ readonly dir: string; readonly present: ReadonlySet<string> }> => {
  const found: Array<{ readonly dir: string; readonly present: ReadonlySet<string> }> = []
  let current = from
  for (let depth = 0; depth < 64; depth++) {
    const up = dirname(current)
    if (up === current) break
    current = up
    const present = new Set([RGIGNORE, IGNORE].filter((name) => existsSync(join(current, name))))
    if (present.size > 0) found.push({ dir: current, present })
  }
  return found.reverse()
}

/**
 * Answers "is this path ignored?" for paths below `start`, reading each
 * directory's ignore files once (a cache per directory): for checking a
 * result list (ripgrep's `--glob` whitelists win over ignore files, anvil's
 * rules do not). Every component below `start` is judged as the walk would:
 * the default ignore list for directories, then the ignore files.
 */
export const makeIgnoreOracle = Effect.fn("makeIgnoreOracle")(function* (
  root: string,
  start: string,
  ignoredDirs: ReadonlySet<string>,
) {
  const base = yield* ancestorRules(root, start)
  const cache = new Map<string, DirRules | undefined>()
  const verdicts = new Map<string, boolean>()
  const rulesOf = (dir: string, parent: DirRules | undefined) =>
    cache.has(dir)
      ? Effect.succeed(cache.get(dir))
      : Effect.tap(loadDirRules(dir, parent), (r) => Effect.sync(() => cache.set(dir, r)))

  /** `rel`: a POSIX path relative to `start`. */
  const isIgnored = (rel: string) =>
    Effect.gen(function* () {
      const parts = rel.split("/")
      let dir = start
      let rules = yield* rulesOf(start, base)
      for (let i = 0; i < parts.length; i++) {
        const name = parts[i]!
        const isDir = i < parts.length - 1
        const abs = below(dir, name)
        const key = `${abs}${isDir ? "/" : ""}`
        let ignored = verdicts.get(key)
        if (ignored === undefined) {
          ignored = (isDir && ignoredDirs.has(name)) || isIgnoredIn(rules, dir, name, isDir)
          verdicts.set(key, ignored)
        }
        if (ignored) return true
        if (isDir) {
          rules = yield* rulesOf(abs, rules)
          dir = abs
        }
      }
      return false
    })
  return { isIgnored }
})

keepBelowTopTier(isIgnoredIn, deepest)
