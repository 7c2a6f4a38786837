import { lookup } from "./lookup.ts"
import { Context, Data, Effect, Layer } from "effect"
import { join } from "node:path"
import { readSettingsFile, unreadableSettingsMessage } from "./settings-file.ts"
import { defaultCheckCache, rememberCheck, rememberedCheck, type ConfigCheckCache } from "./check-cache.ts"
import { mayNestTooDeep } from "./json-depth.ts"
export type { ConfigCheckCache } from "./check-cache.ts"
import type { ConfigWarning } from "./warning.ts"
import type { IgnoredSetting } from "./ignored.ts"
import { isRecord } from "../protocol/is-record.ts"
import { userConfigHome } from "../workspace/state-dir.ts"

/**
 * The variables that set a key (the sections' `env` maps; a test keeps the two equal), named here so
 * a start without them loads neither the sections nor the settings' Schema.
 */
export const SETTING_VARIABLES: ReadonlyArray<string> = [
  "ANVIL_MODEL",
  "ANVIL_GIT_BACKEND",
  "TOOL_OUTPUT_MAX_LINES",
  "TOOL_OUTPUT_MAX_BYTES",
  "TOOL_OUTPUT_TRUNCATE_DIRECTION",
  "TOOL_OUTPUT_DIR",
  "TOOL_OUTPUT_RETENTION_DAYS",
  "ANVIL_RG_PATH",
]

/** anvil.json as a plain object: project settings over user settings. */
export type ConfigData = Readonly<Record<string, unknown>>

/** `""` reads as string, `0` as number: a fallback's literal type does not narrow the setting. */
export type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T

/** A configuration file that could not be used, with where and why. */
export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {
  constructor(message: string) {
    super({ message })
  }
}

/** `--strict` and anvil.json has warnings: they count as errors (exit code 2). */
export class ConfigStrictError extends Data.TaggedError("ConfigStrictError")<{ readonly count: number }> {
  override get message() {
    return `${this.count === 1 ? "a configuration warning is" : `${this.count} configuration warnings are`} an error with --strict; fix anvil.json or the environment (see above)`
  }
}

/** Where a layer of settings came from, lowest precedence first. */
export type ConfigSource = "user file" | "project file" | "overrides"

/** One file's (or the overrides') settings as read. */
export interface ConfigLayer {
  readonly source: ConfigSource
  readonly file?: string
  readonly data: ConfigData
}

/** The merged configuration (user file, then project file) and the process environment it was read with. */
export interface ConfigShape {
  readonly data: ConfigData
  /** The environment variables anvil was started with; read here, never from `process.env` inside tools. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The files that were read, in order of precedence (lowest first). */
  readonly sources: ReadonlyArray<string>
  /** Each file's settings, lowest precedence first (for `anvil config`). */
  readonly layers: ReadonlyArray<ConfigLayer>
  /** Keys the files have that anvil does not understand, and values of the wrong type. */
  readonly warnings: ReadonlyArray<ConfigWarning>
  /**
   * Settings of the project file left out because the user has not trusted them (trust/project-settings.ts);
   * `data` and the project layer are without them. Undefined or empty when nothing was left out.
   */
  readonly ignored?: ReadonlyArray<IgnoredSetting>
  /** A setting by dotted path ("tools.read.max_limit"), or `fallback` when unset or of another type. */
  readonly get: <T extends string | number | boolean | ReadonlyArray<unknown> | Record<string, unknown>>(
    key: string,
    fallback: T,
  ) => Widen<T>
  /** A positive whole-number setting (a limit, a timeout): fractions are floored; zero, negatives or another type give `fallback`. */
  readonly count: (key: string, fallback: number) => number
}

export interface ConfigOptions {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** Settings given directly (tests, `--config`), applied last. */
  readonly overrides?: ConfigData
  /**
   * Where checks of the files' settings are remembered. Default: the user's cache folder in a
   * compiled executable (see `defaultCheckCache`), none from source; `false`: none.
   */
  readonly checkCache?: ConfigCheckCache | false
}

/** Deep merge: objects merge key by key, anything else is replaced. */
export const mergeConfig = (base: ConfigData, over: ConfigData): ConfigData => {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) out[k] = isRecord(v) && isRecord(out[k]) ? mergeConfig(out[k] as ConfigData, v) : v
  return out
}

const sameKind = (value: unknown, fallback: unknown): boolean =>
  Array.isArray(fallback) ? Array.isArray(value) : isRecord(fallback) ? isRecord(value) : typeof value === typeof fallback

export const makeConfig = (
  data: ConfigData,
  env: ConfigShape["env"],
  sources: ReadonlyArray<string> = [],
  layers: ReadonlyArray<ConfigLayer> = [],
  warnings: ReadonlyArray<ConfigWarning> = [],
  ignored: ReadonlyArray<IgnoredSetting> = [],
): ConfigShape => ({
  data,
  env,
  sources,
  layers,
  warnings,
  ...(ignored.length > 0 ? { ignored } : {}),
  get: (key, fallback) => {
    const value = lookup(data, key)
    return (value !== undefined && sameKind(value, fallback) ? value : fallback) as Widen<typeof fallback>
  },
  count: (key, fallback) => {
    const value = lookup(data, key)
    return typeof value === "number" && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback
  },
})

/**
 * The file's text; undefined when there is none (missing or empty); a ConfigError naming the next step when
 * something is there that cannot be read (a folder, a FIFO or device, no permission): a folder named anvil.json
 * passed over in silence leaves the user wondering why their settings have no effect.
 */
const readText = (file: string): string | undefined | ConfigError => {
  const read = readSettingsFile(file)
  if (read.kind === "unreadable") return new ConfigError(`${file} ${unreadableSettingsMessage(file, read.reason)}`)
  return read.kind === "text" ? read.text : undefined
}

/** Text with comments or trailing commas: its value and syntax tree, or the ConfigError naming where it breaks. */
const parseJsoncText = async (file: string, text: string) => {
  const { JsoncSyntaxError, parseJsoncTree } = await import("./jsonc.ts")
  const parsed = parseJsoncTree(text)
  if (parsed instanceof JsoncSyntaxError) return new ConfigError(`${file}: not valid JSON (${parsed.message}). Fix or remove the file.`)
  return parsed
}

/** The value of plain JSON (most files; the same value the JSONC parser gives), or undefined. */
const plainJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return undefined
  }
}

/**
 * One file's settings and warnings. The settings' Schema (and the JSONC parser that places its
 * warnings) is loaded only for a file with settings that this build has not checked before (see
 * check-cache.ts); the parser also reads text that is not plain JSON, unless its value was remembered.
 */
const readLayer = async (file: string, text: string, cache: ConfigCheckCache | undefined) => {
  const plain = plainJson(text)
  if (plain && !isRecord(plain.value)) return new ConfigError(`${file}: the top level must be an object.`)
  if (plain && Object.keys(plain.value as ConfigData).length === 0) return { value: plain.value as ConfigData, warnings: [] }
  const remembered = cache ? rememberedCheck(cache, file, text, plain === undefined) : undefined
  if (remembered) return { value: plain ? (plain.value as ConfigData) : remembered.value, warnings: remembered.warnings }
  if (mayNestTooDeep(text)) {
    // Deep nesting would run the stack out in the settings' check (plain JSON parses at any depth). After the
    // remembered check: a file checked before passed this, so a start with known settings never scans them.
    const { tooDeepAt, tooDeepError } = await import("./jsonc.ts")
    const deep = tooDeepAt(text)
    if (deep !== undefined) return new ConfigError(`${file}: not valid settings (${tooDeepError(text, deep).message}). Fix or remove the file.`)
  }
  const parsed = plain ? { value: plain.value, tree: undefined } : await parseJsoncText(file, text)
  if (parsed instanceof ConfigError) return parsed
  if (!isRecord(parsed.value)) return new ConfigError(`${file}: the top level must be an object.`)
  let warnings: ReadonlyArray<ConfigWarning> = []
  if (Object.keys(parsed.value).length > 0) {
    const { checkConfig } = await import("./check.ts")
    warnings = checkConfig(file, text, parsed.tree, parsed.value)
  }
  if (cache) rememberCheck(cache, file, text, { value: parsed.value, warnings, plain: plain !== undefined })
  return { value: parsed.value as ConfigData, warnings }
}

/**
 * Reads `~/.config/anvil/anvil.json` (or $XDG_CONFIG_HOME) and `<root>/anvil.json`: the merged
 * configuration, or a ConfigError naming a file that does not parse or is not an object. Keys the
 * Schema does not know and values of the wrong type are warnings (see `checkConfig`).
 */
export const readConfig = async (options: ConfigOptions): Promise<ConfigShape | ConfigError> => {
  const configHome = userConfigHome(options.env)
  const candidates: ReadonlyArray<{ file: string; source: ConfigSource }> = [
    ...(configHome ? [{ file: join(configHome, "anvil", "anvil.json"), source: "user file" as const }] : []),
    { file: join(options.root, "anvil.json"), source: "project file" },
  ]
  let data: ConfigData = {}
  const sources: Array<string> = []
  const layers: Array<ConfigLayer> = []
  const warnings: Array<ConfigWarning> = []
  let cache: ConfigCheckCache | undefined
  for (const { file, source } of candidates) {
    const text = readText(file)
    if (text instanceof ConfigError) return text
    if (text === undefined) continue
    if (cache === undefined && options.checkCache !== false) {
      cache = options.checkCache ?? defaultCheckCache(options.env)
    }
    const layer = await readLayer(file, text, cache)
    if (layer instanceof ConfigError) return layer
    warnings.push(...layer.warnings)
    data = mergeConfig(data, layer.value)
    sources.push(file)
    layers.push({ source, file, data: layer.value })
  }
  if (options.overrides) {
    data = mergeConfig(data, options.overrides)
    layers.push({ source: "overrides", data: options.overrides })
  }
  // The Schema that checks a variable's value is loaded only when one is set or a file has a refused value.
  if (warnings.some((w) => w.kind === "invalid_value") || SETTING_VARIABLES.some((v) => (options.env[v] ?? "").trim() !== "")) {
    const { environmentWarnings } = await import("./environment-check.ts")
    return makeConfig(data, options.env, sources, layers, environmentWarnings(data, options.env, warnings))
  }
  return makeConfig(data, options.env, sources, layers, warnings)
}

export class Config extends Context.Service<Config, ConfigShape>()("anvil/Config") {
  /** {@link readConfig} as an Effect that fails with the ConfigError. */
  static load = (options: ConfigOptions) =>
    Effect.flatMap(
      Effect.promise(() => readConfig(options)),
      (config) => (config instanceof ConfigError ? Effect.fail(config) : Effect.succeed(config)),
    )

  static layer = (options: ConfigOptions) => Layer.effect(Config, Config.load(options))

  /** A fixed configuration, for tests and embedding. */
  static layerFrom = (data: ConfigData = {}, env: ConfigShape["env"] = {}) => Layer.succeed(Config, makeConfig(data, env))
}
