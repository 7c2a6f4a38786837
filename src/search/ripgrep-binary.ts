import { ByteSize, Effect } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { embeddedAssets, type EmbeddedAssets } from "../embedded/assets.ts"
import { atomicWrite } from "../workspace/atomic-write.ts"

/** Where the rg that anvil will run came from. */
export type RipgrepSource = "path" | "embedded" | "node_modules"

export interface RipgrepLocation {
  /** An absolute path to an executable rg. */
  readonly path: string
  readonly source: RipgrepSource
}

export interface LocateRipgrepOptions {
  /** The embedded manifest (default: the real one; tests pass a fake). */
  readonly assets?: EmbeddedAssets
  /** The folder holding `rg` in a source checkout (default: node_modules' @vscode/ripgrep-<platform>-<arch>/bin). */
  readonly packageBinDir?: string
  /** Skip the PATH lookup (tests of the extraction). */
  readonly ignorePath?: boolean
}

const exe = process.platform === "win32" ? "rg.exe" : "rg"

/** A regular file with an execute bit: something spawn can run. */
const isExecutable = (fs: FileSystem, file: string) =>
  fs.stat(file).pipe(
    Effect.map((info) => info.type === "File" && (process.platform === "win32" || (info.mode & 0o111) !== 0)),
    Effect.orElseSucceed(() => false),
  )

/** The first `rg` in the PATH of the Config service's environment (absolute PATH entries only). */
const onPath = Effect.fn("ripgrep.onPath")(function* (env: Readonly<Record<string, string | undefined>>) {
  const fs = yield* FileSystem
  const path = yield* Path
  const dirs = (env.PATH ?? env.Path ?? "").split(process.platform === "win32" ? ";" : ":")
  for (const dir of dirs) {
    // A relative entry ("", ".") would run whatever rg the current repository holds.
    if (!dir || !path.isAbsolute(dir)) continue
    const file = path.join(dir, exe)
    if (yield* isExecutable(fs, file)) return file
  }
  return undefined
})

/**
 * The folders the embedded rg may be extracted into, best first:
 * $XDG_CACHE_HOME/anvil, ~/.cache/anvil (or %LOCALAPPDATA%\anvil), then $TMPDIR/anvil-cache.
 */
export const ripgrepCacheDirs = (env: Readonly<Record<string, string | undefined>>, path: Path): Array<string> => {
  const dirs: Array<string> = []
  const add = (dir: string | undefined, ...rest: Array<string>) => {
    if (dir && path.isAbsolute(dir)) dirs.push(path.join(dir, ...rest))
  }
  add(env.XDG_CACHE_HOME, "anvil")
  add(env.HOME ?? env.USERPROFILE, ".cache", "anvil")
  add(env.LOCALAPPDATA, "anvil")
  add(env.TMPDIR ?? env.TEMP ?? (process.platform === "win32" ? undefined : "/tmp"), "anvil-cache")
  return [...new Set(dirs)]
}

const isGzip = (file: string) => file.endsWith(".gz")

/** Uncompressed sizes of embedded .gz files already looked at (they never change while anvil runs). */
const gzipSizes = new Map<string, bigint>()

/**
 * The size rg has once extracted: the embedded file's own size, or for a
 * gzip-compressed one (build.ts embeds `rg.gz`) the ISIZE field of the gzip
 * trailer (the last 4 bytes, little-endian), so checking the cache never
 * decompresses anything. Bun's `$bunfs` cannot `open` a file, only read it
 * whole, hence the memo.
 */
const extractedSize = Effect.fn("ripgrep.extractedSize")(function* (embedded: string) {
  const fs = yield* FileSystem
  if (!isGzip(embedded)) return ByteSize.toBigInt((yield* fs.stat(embedded)).size)
  const known = gzipSizes.get(embedded)
  if (known !== undefined) return known
  const bytes = yield* fs.readFile(embedded)
  if (bytes.length < 18) return yield* Effect.fail(new Error(`${embedded}: not a gzip file`))
  const size = BigInt(new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 4, 4).getUint32(0, true))
  gzipSizes.set(embedded, size)
  return size
})

/**
 * Copies the embedded rg to `<cacheDir>/rg-<version>/rg` (gunzipping a `.gz`)
 * unless a copy of the right size is already there. The copy is written
 * atomically (temp file and rename, so concurrent anvils never see half a
 * binary) with mode 755.
 */
export const extractRipgrep = Effect.fn("ripgrep.extract")(function* (embedded: string, version: string, cacheDir: string) {
  const fs = yield* FileSystem
  const path = yield* Path
  const target = path.join(cacheDir, `rg-${version}`, exe)
  const expected = yield* extractedSize(embedded)
  const existing = yield* fs.stat(target).pipe(Effect.option)
  if (existing._tag === "Some" && existing.value.type === "File" && ByteSize.toBigInt(existing.value.size) === expected) {
    if ((existing.value.mode & 0o755) !== 0o755) yield* fs.chmod(target, 0o755)
    return target
  }
  const stored = yield* fs.readFile(embedded)
  const bytes = isGzip(embedded) ? yield* Effect.try(() => Bun.gunzipSync(stored as Uint8Array<ArrayBuffer>)) : stored
  yield* atomicWrite(target, bytes, { mode: 0o755 })
  return target
})

/**
 * Finds an rg to run, in this order:
 * 1. `rg` on the PATH of the Config service's environment;
 * 2. the rg embedded in the executable, extracted once into the cache folder
 *    (see {@link ripgrepCacheDirs}) and reused by later runs;
 * 3. in a source checkout, node_modules' @vscode/ripgrep-<platform>-<arch>/bin/rg.
 * Undefined when none is usable: the caller then falls back to its in-process
 * search. Never fails. Cheap after the first extraction (a few `stat`s), so
 * callers may call it once per search.
 */
export const findRipgrep = Effect.fn("findRipgrep")(function* (options: LocateRipgrepOptions = {}) {
  const fs = yield* FileSystem
  const path = yield* Path
  const { env } = yield* Config
  const assets = options.assets ?? embeddedAssets
  if (!options.ignorePath) {
    const found = yield* onPath(env)
    if (found) return { path: found, source: "path" } satisfies RipgrepLocation
  }
  if (assets.ripgrep) {
    for (const dir of ripgrepCacheDirs(env, path)) {
      const extracted = yield* extractRipgrep(assets.ripgrep, assets.ripgrepVersion ?? "embedded", dir).pipe(Effect.option)
      if (extracted._tag === "Some") return { path: extracted.value, source: "embedded" } satisfies RipgrepLocation
    }
  }
  if (!assets.compiled || options.packageBinDir) {
    const binDir =
      options.packageBinDir ??
      path.resolve(import.meta.dir, "..", "..", "node_modules", "@vscode", `ripgrep-${process.platform}-${process.arch}`, "bin")
    const file = path.join(binDir, exe)
    if (yield* isExecutable(fs, file)) return { path: file, source: "node_modules" } satisfies RipgrepLocation
  }
  return undefined
})

/**
 * The path of an rg to spawn, or undefined (then search in-process).
 * This is what the grep tool calls: `const rg = yield* locateRipgrep`.
 */
export const locateRipgrep: Effect.Effect<string | undefined, never, FileSystem | Path | Config> = Effect.map(
  Effect.suspend(() => findRipgrep()),
  (location) => location?.path,
)
