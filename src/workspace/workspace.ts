import { Context, Effect, Layer } from "effect"
import { FileSystem } from "./file-system.ts"
import { Path } from "effect/Path"
import { existsSync, realpathSync } from "node:fs"
import { errnoOf, fromPlatformError } from "./fs-error.ts"
import { anvilStateFolders, ensureStateDir, plannedStateDir, type Env } from "./state-dir.ts"
import { WorkspaceError } from "./workspace-error.ts"
import { counted } from "../protocol/plural.ts"
import { basenameKeeping, decodePath, dirnameKeeping, fsPath, hasEscapedBytes, parseShownPath, resolveKeeping, showPath } from "./path-bytes.ts"

/** A path the sandbox accepted. */
export interface ResolvedPath {
  /** Absolute path as the caller named it (lexically normalised, links not followed). */
  readonly absolute: string
  /** Absolute path with every existing symlink followed. */
  readonly real: string
  /** How results name it: POSIX, relative to the project root ("." for the root); absolute when outside it (an allowed extra folder). */
  readonly display: string
  /** Whether the path exists (a dangling final symlink counts as existing). */
  readonly exists: boolean
}

/** Where the project is and how paths inside it are resolved. */
export interface WorkspaceShape {
  /** The project root, absolute and real. */
  readonly root: string
  /** The working directory, absolute (inside the root). */
  readonly cwd: string
  /** The working directory relative to the root ("." at the root): the envelope's context.cwd. */
  readonly cwdDisplay: string
  /**
   * Resolves a user-supplied path against the working directory and checks the
   * sandbox: `..`, absolute paths and symlinks whose real target leaves the root
   * (and the allowed extra folders) are outside_root; NUL bytes, over-long
   * paths and symlink loops are bad_path. `~` and `~/…` are the home folder
   * (outside_root unless it lies inside). A name that does not exist in the
   * Unicode form given (NFC or NFD) but does in the other resolves to that one.
   */
  readonly resolve: (input: string, field?: string) => Effect.Effect<ResolvedPath, WorkspaceError>
  /** Set when the allowed folders hold places the tools keep out of all the same (WorkspaceOptions `withheld`), which `contains` refuses. */
  readonly withholds?: boolean
  /** Whether an absolute real path lies inside the root or an allowed folder (and not in a withheld place there). */
  readonly contains: (realPath: string) => boolean
  /** How results name an absolute path. */
  readonly display: (absolute: string) => string
  /**
   * anvil's own state folder `sub` ("journal", "todos", …) for this project,
   * made if missing: `.anvil/<sub>` when that is a real folder inside the
   * root, else a private folder in the user's cache.
   */
  readonly stateDir: (sub: string) => string
  /** Where `stateDir(sub)` is, without creating anything. */
  readonly plannedStateDir: (sub: string) => string
  /**
   * What the file tools must not change besides the built-in protected paths (sandbox/protected-paths.ts):
   * `sandbox.protected`, and the home folder its `~/` entries are taken from.
   */
  readonly protection: {
    readonly extra: ReadonlyArray<string>
    readonly home: string | undefined
    /** The folders outside the root the tools may reach (real paths): each keeps the built-in protected paths as the root does. */
    readonly folders?: ReadonlyArray<string>
    /** `$CLAUDE_CONFIG_DIR` when set (Claude Code's config folder, else `~/.claude`), whose settings and hooks stay unchanged. */
    readonly claudeConfigDir?: string
    /** anvil's own settings and cache folders (state-dir.ts anvilStateFolders), which no file tool changes. */
    readonly anvilState?: ReadonlyArray<string>
  }
}

/** A place in the folders outside the project that the file tools keep out of (sandbox/tool-reach.ts): absolute, why, and what gives it back. */
export interface Withheld {
  readonly path: string
  readonly why: string
  readonly nextStep: string
}

export interface WorkspaceOptions {
  readonly root: string
  readonly cwd: string
  /** Folders outside the root that tools may still reach (the spill folder, configured extras). */
  readonly extraAllowed?: ReadonlyArray<string>
  /** The environment (XDG_CACHE_HOME, HOME) for the private state folder. Default: the process's. */
  readonly env?: Env
  /** Places inside `extraAllowed` the tools may not reach all the same (the command sandbox's secrets there). */
  readonly withheld?: ReadonlyArray<Withheld>
  /** `sandbox.protected`: more paths the file tools must not change (see WorkspaceShape.protection). */
  readonly protectedPaths?: ReadonlyArray<string>
}

const MAX_PATH_BYTES = 4096
const MAX_COMPONENT_BYTES = 255

export class Workspace extends Context.Service<Workspace, WorkspaceShape>()("anvil/Workspace") {
  // Untraced: a span on every start is work no one reads.
  static make = Effect.fnUntraced(function* (options: WorkspaceOptions) {
    const fs = yield* FileSystem
    const path = yield* Path
    // Synchronous: a handful of realpath calls at start, each far cheaper than a round trip through the event loop.
    const realOrSync = (p: string) => {
      try {
        return realpathSync(p)
      } catch {
        return path.resolve(p)
      }
    }
    const realOr = (p: string) => Effect.sync(() => realOrSync(p))
    const realOrUndefined = (p: string) => {
      try {
        // A name that is not UTF-8 is found by its bytes and comes back with them escaped (path-bytes.ts).
        return hasEscapedBytes(p) ? decodePath(realpathSync(fsPath(p), { encoding: "buffer" })) : realpathSync(p)
      } catch {
        return undefined
      }
    }
    const env = options.env ?? process.env
    const root = realOrSync(options.root)
    const cwdReal = realOrSync(options.cwd)
    const cwd = isWithin(path.sep, root, cwdReal) ? cwdReal : root
    const allowed = [root, ...(options.extraAllowed ?? []).map(realOrSync)]

    const withheld = options.withheld ?? []
    const withheldAt = (p: string) => (isWithin(path.sep, root, p) ? undefined : withheld.find((w) => isWithin(path.sep, w.path, p)))
    const contains = (p: string) => allowed.some((a) => isWithin(path.sep, a, p)) && (withheld.length === 0 || withheldAt(p) === undefined)
    const display = (abs: string) => {
      if (!isWithin(path.sep, root, abs)) return showPath(abs)
      const rel = hasEscapedBytes(abs) ? abs.slice(root.length + 1) : path.relative(root, abs)
      return rel === "" ? "." : showPath(rel.split(path.sep).join("/"))
    }

    const resolve = (shownInput: string, field = "path"): Effect.Effect<ResolvedPath, WorkspaceError> =>
      Effect.gen(function* () {
        // A name shown quoted (its bytes not UTF-8, see showPath) names that file when given back.
        const input = parseShownPath(shownInput)
        if (input.includes("\0")) {
          return yield* new WorkspaceError({
            reason: "bad_path",
            message: `Invalid parameter '${field}': the path contains a NUL byte.`,
            field: { name: field, problem: "path contains a NUL byte" },
          })
        }
        const bytes = Buffer.byteLength(input)
        const longest = Math.max(0, ...input.split(/[\\/]/).map((c) => Buffer.byteLength(c)))
        if (bytes > MAX_PATH_BYTES || longest > MAX_COMPONENT_BYTES) {
          return yield* new WorkspaceError({
            reason: "bad_path",
            message: `Invalid parameter '${field}': the path is too long (${bytes} bytes).`,
            field: { name: field, problem: `path too long (max ${MAX_PATH_BYTES} bytes, ${MAX_COMPONENT_BYTES} per component)` },
          })
        }
        // `~` is the home folder, as every shell and most models mean it, never a folder named `~` in the project
        // (that one is `./~`): a write to `~/.bashrc` must not quietly make `<root>/~/.bashrc`.
        const home = input === "~" || input.startsWith("~/") ? env.HOME : undefined
        // A secret there (withheld) is refused below, saying which and why.
        if ((input === "~" || input.startsWith("~/")) && (home === undefined || !allowed.some((a) => isWithin(path.sep, a, path.resolve(home, input.slice(2)))))) {
          return yield* new WorkspaceError({
            reason: "outside_root",
            message: `Access denied: '${input}' is in your home folder (~), outside the project root. A folder named '~' inside the project is './~'.`,
            field: { name: field, problem: "outside the project root" },
          })
        }
        const found = yield* locate(home === undefined ? input : path.resolve(home, input.slice(2)), input, field)
        if (found.exists || !/[^\x00-\x7f]/.test(input)) return found
        // A name typed in one Unicode form (é as one code point, NFC) names the file stored in the other (e + a
        // combining accent, NFD: files from macOS) when only that one exists; a new file keeps the form given.
        for (const form of ["NFC", "NFD"] as const) {
          const other = input.normalize(form)
          if (other === input) continue
          const alt = yield* locate(home === undefined ? other : path.resolve(home, other.slice(2)), other, field)
          if (alt.exists) return alt
        }
        return found
      })

    const locate = (given: string, input: string, field: string): Effect.Effect<ResolvedPath, WorkspaceError> =>
      Effect.gen(function* () {
        const named = resolveKeeping(cwd, given === "" ? "." : given, path.resolve)
        // A path through a link to the project (the shell's $PWD in a linked folder, a linked --root) names the
        // project's own files: it is read from the first folder on it that really lies inside.
        const absolute = contains(named) ? named : (throughLink(named) ?? named)
        const shown = display(absolute)
        if (!contains(absolute)) return yield* outside(input, field, false, absolute)
        const { real, exists } = yield* realPathOf(absolute, shown)
        if (!contains(real)) return yield* outside(input, field, true, real)
        return { absolute, real, display: shown, exists }
      })

    /** `named` rebased on the shortest of its folders whose real place is inside the root (or an allowed folder). */
    const throughLink = (named: string): string | undefined => {
      const parts = named.split(path.sep)
      for (let i = 2; i <= parts.length; i++) {
        const real = realOrUndefined(parts.slice(0, i).join(path.sep))
        if (real === undefined) return undefined
        if (contains(real)) return path.join(real, ...parts.slice(i))
      }
      return undefined
    }

    // Follows links on the longest existing prefix, so a new file under a
    // symlinked folder is still checked against where it would really land.
    const realPathOf = (absolute: string, shown: string) =>
      Effect.gen(function* () {
        const rest: Array<string> = []
        let current = absolute
        for (;;) {
          // A path that resolves is answered synchronously (most calls): no round trip through the event loop.
          // A failure takes the platform's path below, which words every error as before.
          const found = realOrUndefined(current)
          if (found !== undefined) {
            return { real: rest.length === 0 ? found : resolveKeeping(found, rest.reverse().join("/"), path.resolve), exists: rest.length === 0 }
          }
          if (hasEscapedBytes(current)) {
            // Not there under its bytes: its folder is looked at next (the platform's calls take no bytes).
            const parent = dirnameKeeping(current, path.dirname)
            if (parent === current) return { real: absolute, exists: false }
            rest.push(basenameKeeping(current, path.basename))
            current = parent
            continue
          }
          const attempt = yield* fs.realPath(current).pipe(Effect.result)
          if (attempt._tag === "Success") {
            return { real: rest.length === 0 ? attempt.success : path.join(attempt.success, ...rest.reverse()), exists: rest.length === 0 }
          }
          const errno = errnoOf(attempt.failure)
          if (errno === "ENOENT" || errno === "ENOTDIR" || attempt.failure.reason._tag === "NotFound") {
            // A dangling link: it exists, its target does not. Judge it by its target.
            const link = yield* fs.readLink(current).pipe(Effect.option)
            if (link._tag === "Some" && rest.length === 0) {
              const target = path.resolve(path.dirname(current), link.value)
              const parentReal = yield* realOr(path.dirname(current))
              const real = path.isAbsolute(link.value) ? target : path.resolve(parentReal, link.value)
              return { real, exists: true }
            }
            const parent = path.dirname(current)
            if (parent === current) return { real: absolute, exists: false }
            rest.push(path.basename(current))
            current = parent
            continue
          }
          return yield* fromPlatformError(attempt.failure, shown)
        }
      })

    const outside = (input: string, field: string, viaLink: boolean, at: string) => {
      const secret = withheld.length === 0 ? undefined : withheldAt(at)
      if (secret !== undefined && allowed.some((a) => isWithin(path.sep, a, at))) {
        return new WorkspaceError({
          reason: "outside_root",
          message: `Access denied: '${input}' is in ${secret.why}; the file tools keep out of it too, though the folders they may reach hold it. ${secret.nextStep}`,
          field: { name: field, problem: "a secret the command sandbox hides" },
          hints: [],
        })
      }
      return new WorkspaceError({
        reason: "outside_root",
        message: viaLink
          ? `Access denied: '${input}' is a symbolic link that leads outside the project root.`
          : `Access denied: '${input}' is outside the project root.`,
        field: { name: field, problem: "outside the project root" },
      })
    }

    // A change killed half way by an earlier run is rolled back before anything else touches the files.
    // The recovery code is loaded only when there is a journal folder (a change was ever made here).
    const journals = plannedStateDir(root, "journal", env)
    const recovered = existsSync(journals)
      ? (yield* Effect.promise(() => import("./journal.ts"))).recoverJournals(journals, root, contains)
      : { restored: [] }
    if (recovered.restored.length > 0) {
      const names = recovered.restored.map(display)
      process.stderr.write(`anvil: an earlier change was interrupted; put back ${counted(names.length, "file")} as they were before it: ${names.join(", ")}\n`)
    }
    const stateDir = (sub: string) => ensureStateDir(root, sub, env)
    const planned = (sub: string) => plannedStateDir(root, sub, env)
    return Workspace.of({ root, cwd, cwdDisplay: display(cwd), resolve, contains, ...(withheld.length > 0 ? { withholds: true } : {}), display, stateDir, plannedStateDir: planned, protection: { extra: options.protectedPaths ?? [], home: env.HOME, folders: allowed.slice(1), anvilState: anvilStateFolders(env.HOME, env), ...(env.CLAUDE_CONFIG_DIR ? { claudeConfigDir: env.CLAUDE_CONFIG_DIR } : {}) } })
  })

  /** A Workspace layer for the given root and working directory. */
  static layer = (options: WorkspaceOptions) => Layer.effect(Workspace, Workspace.make(options))
}

const isWithin = (sep: string, parent: string, child: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep)
