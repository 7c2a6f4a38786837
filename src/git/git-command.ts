/**
 * The git command lines the git tools run, as plain data: the one place their program, arguments, folder and
 * environment are made. No Effect here: `anvil tool git_*` starts its git from these before the runtime is
 * loaded (early-git.ts), and the git service adopts that process only when it makes the same command itself.
 * No node:fs either, for that start's sake.
 */

import { escapedByteAt, hasEscapedBytes } from "../workspace/path-bytes.ts"
import { enteredRepositories, gitDirOf } from "./entered-repositories.ts"

/** One git process to start: exactly what is handed to the operating system, apart from anvil's process mark. */
export interface GitCommand {
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
}

/** The git executable and the environment every git command runs with. */
export interface GitSetup {
  readonly file: string
  readonly env: Readonly<Record<string, string>>
}

const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"

/**
 * Settings given on every call so that reading a repository never runs code a
 * configuration names (an fsmonitor hook, an external diff or textconv
 * driver) and never waits for a pager or a password prompt.
 */
const SAFE_ARGS = [
  "--no-pager",
  "-c", "core.fsmonitor=false",
  "-c", "core.quotepath=on",
  "-c", "color.ui=false",
  "-c", "diff.external=",
  "-c", "log.showSignature=false",
]

/**
 * The child's environment: the user's own, minus every GIT_* variable that
 * would point git elsewhere (GIT_DIR, GIT_OBJECT_DIRECTORY…), keeping the
 * identity ones and GIT_INDEX_FILE (which index of this repository to use: a
 * user or a hook that sets it means the tools to read and stage there, and the
 * built-in reader follows it too, repository.ts); messages in English (the tools
 * parse and show them), no optional locks (a read never blocks a user's own git).
 */
const gitEnvironment = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue
    if (k.startsWith("GIT_") && !/^GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL|DATE)$/.test(k) && k !== "GIT_CONFIG_NOSYSTEM" && k !== "GIT_INDEX_FILE") continue
    out[k] = v
  }
  out.PATH = env.PATH ?? DEFAULT_PATH
  out.LC_ALL = "C"
  out.GIT_OPTIONAL_LOCKS = "0"
  out.GIT_TERMINAL_PROMPT = "0"
  out.GIT_PAGER = "cat"
  return out
}

/**
 * The first executable `git` on PATH, or undefined. Bun.which, not node:fs: `anvil tool git_*` finds it
 * before the runtime loads, and loading node:fs alone cost that start about 1.3 ms (early-git.ts).
 */
const findGit = (path: string | undefined): string | undefined => Bun.which("git", { PATH: path ?? DEFAULT_PATH }) ?? undefined

/**
 * The git command line when one is installed and wanted: `git.backend` (`configured`; ANVIL_GIT_BACKEND
 * before it) "cli" or "auto" (the default) uses it, "isomorphic" keeps the built-in implementation.
 * Undefined means: use isomorphic-git.
 */
export const gitSetup = (env: Readonly<Record<string, string | undefined>>, configured: string): GitSetup | undefined => {
  if ((env.ANVIL_GIT_BACKEND ?? configured) === "isomorphic") return undefined
  const file = findGit(env.PATH)
  return file === undefined ? undefined : { file, env: gitEnvironment(env) }
}

/** `arg` as printf's `%b` turns it back into its bytes: each raw byte in octal (`\0351`), a backslash doubled. */
const printfForm = (arg: string): string => {
  let out = ""
  for (let i = 0; i < arg.length; i++) {
    const byte = escapedByteAt(arg, i)
    out += byte >= 0 ? `\\0${byte.toString(8)}` : arg[i] === "\\" ? "\\\\" : arg[i]
  }
  return out
}

/**
 * Rebuilds each argument from its printf form: `x` keeps trailing line feeds from the command substitution,
 * `shift $n` drops the printf forms.
 */
const REBUILD = 'n=$#; for a do b=$(printf "%bx" "$a"); set -- "$@" "${b%x}"; done; shift "$n"; '

/** The git subcommands that only read: the git tools' status, diffs, log and count. */
const READS = new Set(["status", "diff", "log", "rev-list"])

/**
 * Before a read, switches off what the repository's own config (.git/config, config.worktree and the files they
 * include: scopes local and worktree, as `git config --show-scope` tells, includes followed by git itself) says
 * to run: every filter driver it defines gets an empty `process` (which stops its clean and smudge too) and is
 * not `required`, so a stat-dirty file is compared as it is. The same for every repository the read enters (a
 * submodule, an embedded repository: `git -C` there), whose git inherits these settings. A filter of your own
 * config (git-lfs in ~/.gitconfig) still runs. GIT_ALLOW_PROTOCOL empty allows no transport, whatever the config
 * says, so a partial clone's missing object is never fetched (an upload-pack command, an ssh command, a
 * credential helper or a remote helper the repository names would run). Passed as GIT_CONFIG_COUNT/KEY/VALUE,
 * which hold any driver name (`-c` splits at the first `=`). `$1` is git.
 */
const guardScript = (entered: ReadonlyArray<string>): string =>
  'n=0; names() { while IFS= read -r l; do case $l in local"\t"filter.*|worktree"\t"filter.*) d=${l#*"\t"filter.}; d=${d%.*}; ' +
  'export "GIT_CONFIG_KEY_$n=filter.$d.process" "GIT_CONFIG_VALUE_$n=" "GIT_CONFIG_KEY_$((n+1))=filter.$d.required" "GIT_CONFIG_VALUE_$((n+1))=false"; n=$((n+2));; esac; done <<E\n' +
  '$("$@" config --show-scope --name-only --get-regexp \'^filter\\.\')\nE\n' +
  '}; names "$1"; ' +
  (entered.length === 0 ? "" : `for e in ${entered.map((w) => `'${octalForm(w)}'`).join(" ")}; do p=$(printf "%bx" "$e"); names "$1" -C "\${p%x}"; done; `) +
  'export GIT_CONFIG_COUNT=$n GIT_ALLOW_PROTOCOL=; '

/** `path`'s bytes for printf's `%b` with nothing but letters, digits and `/._-` left as they are. */
const octalForm = (path: string): string => {
  let out = ""
  for (const byte of encodeUtf8Escaped(path)) out += /[A-Za-z0-9/._-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `\\0${byte.toString(8)}`
  return out
}

/** The bytes a path string stands for: UTF-8, with escaped bytes (path-bytes.ts) put back as themselves. */
const encodeUtf8Escaped = (path: string): ReadonlyArray<number> => {
  const out: Array<number> = []
  let run = ""
  const flush = () => {
    for (const b of new TextEncoder().encode(run)) out.push(b)
    run = ""
  }
  for (let i = 0; i < path.length; i++) {
    const byte = escapedByteAt(path, i)
    if (byte < 0) run += path[i]
    else {
      flush()
      out.push(byte)
    }
  }
  flush()
  return out
}

/** Reads that look at the work tree, and so enter its submodules: status and the unstaged diff. */
const readsWorkTree = (args: ReadonlyArray<string>): boolean => args[0] === "status" || (args[0] === "diff" && !args.includes("--cached"))

/** Refuses the read when the repositories it would enter cannot be told (see entered-repositories.ts). */
const UNKNOWN_ENTERED = 'echo "anvil: cannot tell which repositories this read enters (an index or .git anvil cannot read), so it does not run" >&2; exit 128; '

/**
 * `git <args>` in `cwd` as it is started. A read runs behind the guard above, through /bin/sh. A path argument naming
 * a file whose name is not UTF-8 (a Latin-1 `caf\351.txt`) cannot be handed to a program as it is (arguments go
 * out as UTF-8, such a byte as U+FFFD, naming no file): then /bin/sh rebuilds the arguments' bytes from their
 * printf forms first. `exec` leaves git itself in the process.
 */
export const gitCommand = (setup: GitSetup, cwd: string, args: ReadonlyArray<string>, extraEnv?: Readonly<Record<string, string>>): GitCommand => {
  const all = [...SAFE_ARGS, ...args]
  const env = extraEnv ? { ...setup.env, ...extraEnv } : setup.env
  const rebuild = args.some(hasEscapedBytes)
  const guard = READS.has(args[0] ?? "")
  if (!rebuild && !guard) return { file: setup.file, args: all, cwd, env }
  const entered = guard && readsWorkTree(args) ? workTreeRepositories(cwd, env) : []
  const guardText = !guard ? "" : entered === undefined ? UNKNOWN_ENTERED : guardScript(entered)
  const words = rebuild ? [setup.file, ...all].map(printfForm) : [setup.file, ...all]
  return { file: "/bin/sh", args: ["-c", `${rebuild ? REBUILD : ""}${guardText}exec "$@"`, "sh", ...words], cwd, env }
}

/** The repositories a work-tree read in `cwd` (the work tree's top) enters; undefined when that cannot be told. */
const workTreeRepositories = (cwd: string, env: Readonly<Record<string, string>>): ReadonlyArray<string> | undefined => {
  const gitDir = gitDirOf(cwd)
  if (gitDir === null || gitDir === undefined) return undefined
  const index = env.GIT_INDEX_FILE === undefined ? `${gitDir}/index` : env.GIT_INDEX_FILE.startsWith("/") ? env.GIT_INDEX_FILE : `${cwd}/${env.GIT_INDEX_FILE}`
  return enteredRepositories(cwd, index, gitDir)
}

/** Whether two commands are the same to the last argument and variable. */
export const sameCommand = (a: GitCommand, b: GitCommand): boolean => {
  if (a.file !== b.file || a.cwd !== b.cwd || a.args.length !== b.args.length || a.args.some((x, i) => x !== b.args[i])) return false
  const keys = Object.keys(a.env)
  return keys.length === Object.keys(b.env).length && keys.every((k) => Object.hasOwn(b.env, k) && a.env[k] === b.env[k])
}

/** Which untracked files git status lists (status.showUntrackedFiles): none, folders collapsed, or every file. */
export type UntrackedMode = "no" | "normal" | "all"

/** The arguments of the status the git_status tool reads. */
export const statusArgs = (mode: UntrackedMode): ReadonlyArray<string> => [
  "status", "--porcelain=v2", "-z", "--branch", `--untracked-files=${mode}`, "--ignore-submodules=none",
]

/** The arguments of the diff the git_diff tool reads (`prefixes`: repository-relative paths, none for all). */
export const diffArgs = (options: {
  readonly staged: boolean
  readonly prefixes: ReadonlyArray<string>
  readonly renames: boolean
  readonly copies?: boolean | undefined
}): ReadonlyArray<string> => [
  "diff",
  ...(options.staged ? ["--cached", !options.renames ? "--no-renames" : options.copies === true ? "--find-copies" : "--find-renames"] : ["--no-renames"]),
  "--raw", "-z", "-p", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/",
  "--",
  ...options.prefixes.map((p) => `:(top,literal)${p}`),
]

/** The field separator of the log format below. */
export const LOG_UNIT = "\u001f"

/** The arguments of the log the git_log tool reads: one commit more than `limit`, to tell whether more remain. */
export const logArgs = (limit: number): ReadonlyArray<string> => [
  "log", "-z", `--max-count=${limit + 1}`, "--no-decorate", "--date=format:%z",
  `--format=%H${LOG_UNIT}%P${LOG_UNIT}%an${LOG_UNIT}%ae${LOG_UNIT}%at${LOG_UNIT}%ad${LOG_UNIT}%B`,
]

/** The commits git_log shows when no limit is given, and the most it shows. */
export const DEFAULT_LOG_LIMIT = 20
export const MAX_LOG_LIMIT = 10_000

/** The arguments that count the commits reachable from HEAD (a cut log's total). */
export const COUNT_ARGS: ReadonlyArray<string> = ["rev-list", "--count", "HEAD"]
