import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { stampContent } from "../trust/content-hash.ts"
import { guardPluginExit } from "./exit-guard.ts"
import { registerHostModules } from "./host-modules.ts"
import { macroProblem, noMacros } from "./no-macros.ts"
import { firstOutside, outsideProblem } from "./outside-inputs.ts"
import { isTimedOut, withTimeLimit } from "./time-limit.ts"
import type { PluginWatch } from "./watchdog.ts"

/** Why a plugin's module could not be loaded, with the place in its source when known. */
export interface LoadProblem {
  readonly message: string
  readonly file?: string
  readonly line?: number
  /** A code for the kind of problem, when it has one (`invalid_plugin_name`). */
  readonly code?: string
  /** The plugin did not finish loading within its time limit (an import or a `setup` that never ends). */
  readonly timedOut?: boolean
}

export type Loaded = { readonly ok: true; readonly module: Record<string, unknown> } | { readonly ok: false; readonly problem: LoadProblem }

/** `$XDG_CACHE_HOME/anvil/plugins` (`~/.cache/anvil/plugins`): folder plugins bundled for import. */
export const pluginCacheDir = (env: Readonly<Record<string, string | undefined>>): string => {
  const home = env.HOME ?? env.USERPROFILE
  const cacheHome = env.XDG_CACHE_HOME || (home ? join(home, ".cache") : join(tmpdir(), "anvil-cache"))
  return join(cacheHome, "anvil", "plugins")
}

/** Where an error points in the plugin's source: Bun's build messages carry a position, thrown errors a stack. */
export const problemOf = (e: unknown, entry: string): LoadProblem => {
  // Several syntax errors come as one AggregateError ("2 errors building …") whose parts carry the positions.
  const parts = (e as { errors?: unknown })?.errors
  if (Array.isArray(parts) && parts.length > 0) {
    const first = problemOf(parts[0], entry)
    const more = parts.length > 1 ? ` (and ${parts.length - 1} more error${parts.length > 2 ? "s" : ""})` : ""
    return { ...first, message: `${first.message}${more}` }
  }
  const err = e as { message?: unknown; position?: { file?: string; line?: number }; stack?: unknown }
  const message = typeof err?.message === "string" ? err.message : String(e)
  if (isTimedOut(e)) return { message, timedOut: true }
  if (err?.position && typeof err.position.line === "number") {
    return { message, file: err.position.file ?? entry, line: err.position.line }
  }
  const stack = typeof err?.stack === "string" ? err.stack : ""
  const frame = stack.split("\n").find((l) => /\s+at .*\.(m?[jt]s):\d+:\d+\)?$/.test(l) && !l.includes("$bunfs") && !l.includes("/anvil/src/"))
  const m = frame?.match(/\(?([^\s(]+\.m?[jt]s):(\d+):\d+\)?$/)
  return m ? { message, file: m[1]!, line: Number(m[2]) } : { message }
}

/** A file's stat fingerprint ("-" when it is gone). */
const statKey = (file: string): string => {
  try {
    const s = statSync(file)
    return `${s.size}:${s.mtimeMs}:${s.ino}`
  } catch {
    return "-"
  }
}

/** Part of every cache key: bundles made before project plugins were checked for macros are made again. */
const CACHE_FORM = "no-macros-1"

/** The files a bundle was made from when each is as it was then (`inputs.json` beside the bundle), else undefined. */
const inputsUnchanged = (inputsFile: string): ReadonlyArray<string> | undefined => {
  try {
    const inputs = JSON.parse(readFileSync(inputsFile, "utf8")) as Array<[string, string]>
    return Array.isArray(inputs) && inputs.every(([file, key]) => statKey(file) === key) ? inputs.map(([file]) => file) : undefined
  } catch {
    return undefined
  }
}

/** What `inputs.json` records: each input with its stat fingerprint. */
const inputsRecord = (inputs: ReadonlyArray<string>): string => JSON.stringify(inputs.map((file) => [file, statKey(file)]))

/** The metafile names its inputs relative to the working directory. */
const inputsOf = (result: Bun.BuildOutput): ReadonlyArray<string> => Object.keys(result.metafile?.inputs ?? {}).map((p) => resolve(p))

/**
 * The files a one-file plugin is made from (itself and every file it imports), read from a bundle made in memory
 * and not kept; remembered in the cache by their stat fingerprints, so an unchanged plugin costs a few stats.
 */
const oneFileInputs = async (
  entry: string,
  cacheDir: string,
  external: ReadonlyArray<string>,
  plugins: Array<Bun.BunPlugin>,
): Promise<ReadonlyArray<string>> => {
  const inputsFile = join(cacheDir, `inputs-${createHash("sha256").update(CACHE_FORM).update(entry).digest("hex").slice(0, 20)}.json`)
  const known = existsSync(inputsFile) ? inputsUnchanged(inputsFile) : undefined
  if (known) return known
  const result = await Bun.build({ entrypoints: [entry], target: "bun", format: "esm", external: [...external], metafile: true, plugins })
  if (!result.success) throw result.logs.find((l) => l.level === "error") ?? new Error("the bundle failed")
  const inputs = inputsOf(result)
  mkdirSync(cacheDir, { recursive: true })
  const temp = `${inputsFile}.${process.pid}.tmp`
  writeFileSync(temp, inputsRecord(inputs))
  renameSync(temp, inputsFile)
  return inputs
}

/**
 * Bundles a folder plugin into one file in the cache, keyed by a stat-only
 * fingerprint of the folder: Bun's compiled executable does not read `main` or
 * `exports` of the packages in a plugin's own node_modules when it imports at
 * run time, but its bundler does. `anvil/plugin` and `effect` stay external so
 * they resolve to the host's copies. The folder's fingerprint leaves out
 * node_modules, so the bundle also records every file it was made from (its
 * dependencies' too) and is made again when one of them changes (an `npm
 * update` in the plugin's folder).
 */
const bundleFolder = async (
  folder: string,
  entry: string,
  cacheDir: string,
  external: ReadonlyArray<string>,
  plugins: Array<Bun.BunPlugin>,
): Promise<{ readonly out: string; readonly inputs: ReadonlyArray<string> }> => {
  const key = createHash("sha256").update(CACHE_FORM).update(entry).update(stampContent({ path: folder }, false) ?? "").digest("hex").slice(0, 20)
  const outdir = join(cacheDir, key)
  const out = join(outdir, "index.js")
  const inputsFile = join(outdir, "inputs.json")
  const known = existsSync(out) ? inputsUnchanged(inputsFile) : undefined
  if (known) return { out, inputs: known }
  const temp = `${outdir}.${process.pid}.tmp`
  rmSync(temp, { recursive: true, force: true })
  mkdirSync(temp, { recursive: true })
  // Bun.build throws on a syntax error rather than answering success: false; either way the temp folder goes
  // (each failed start left one in the cache).
  const result = await Bun.build({
    entrypoints: [entry],
    target: "bun",
    format: "esm",
    outdir: temp,
    naming: "index.js",
    sourcemap: "inline",
    external: [...external],
    metafile: true,
    plugins,
  }).catch((e: unknown) => {
    rmSync(temp, { recursive: true, force: true })
    throw e
  })
  if (!result.success) {
    rmSync(temp, { recursive: true, force: true })
    throw result.logs.find((l) => l.level === "error") ?? new Error("the bundle failed")
  }
  const inputs = inputsOf(result)
  writeFileSync(join(temp, "inputs.json"), inputsRecord(inputs))
  // A stale bundle of the same folder makes way (an import already made from it keeps its module).
  rmSync(outdir, { recursive: true, force: true })
  try {
    renameSync(temp, outdir)
  } catch {
    // Another anvil bundled the same folder at the same time: use theirs.
    rmSync(temp, { recursive: true, force: true })
  }
  return { out, inputs }
}

/**
 * Imports a plugin's module with a time limit covering top-level awaits.
 * Never throws: a syntax error, a throw at import, a missing dependency or the
 * time limit come back as a {@link LoadProblem}.
 */
export const loadPluginModule = async (input: {
  readonly entry: string
  /** The plugin's folder, when it is one (bundled first). */
  readonly folder?: string | undefined
  readonly timeoutMs: number
  readonly env: Readonly<Record<string, string | undefined>>
  /** The plugin's name, and what the watchdog writes if its import freezes anvil (watchdog.ts). */
  readonly plugin: string
  readonly memory?: PluginWatch["memory"]
  /**
   * A project plugin: refused before any of its code runs when it imports a file outside its own folder (or, for
   * one file, any other file), since its trust covers only those (outside-inputs.ts).
   */
  readonly confined?: boolean
}): Promise<Loaded> => {
  // A project plugin's files are checked for macros as they are bundled (no-macros.ts).
  let macro: string | undefined
  const plugins = input.confined ? [noMacros((file) => (macro ??= file))] : []
  try {
    const hostModules = await registerHostModules()
    const cacheDir = pluginCacheDir(input.env)
    const bundle = input.folder ? await bundleFolder(input.folder, input.entry, cacheDir, hostModules, plugins) : undefined
    const file = bundle ? bundle.out : input.entry
    if (input.confined) {
      const inputs = bundle ? bundle.inputs : await oneFileInputs(input.entry, cacheDir, hostModules, plugins)
      const outside = firstOutside(inputs, input.folder ? { folder: input.folder } : { file: input.entry })
      if (outside !== undefined) return { ok: false, problem: outsideProblem(input.plugin, outside, !input.folder) }
    }
    // A bundle's stack frames name its sources (inline source map) or the bundle itself.
    guardPluginExit(file)
    if (input.folder) guardPluginExit(input.folder.endsWith("/") ? input.folder : `${input.folder}/`)
    const message = `loading ${input.entry} did not finish within ${input.timeoutMs} ms (a top-level await that never ends?)`
    const watch = { plugin: input.plugin, what: "loading", setting: "plugins.load_timeout_ms", memory: input.memory }
    const module = (await withTimeLimit(() => import(file), input.timeoutMs, message, watch)) as Record<string, unknown>
    return { ok: true, module }
  } catch (e) {
    return { ok: false, problem: macro !== undefined ? macroProblem(input.plugin, macro) : problemOf(e, input.entry) }
  }
}
