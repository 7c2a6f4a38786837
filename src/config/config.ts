import { Context, Data, Effect, Layer } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import type { ConfigWarning } from "./warning.ts"
import { isRecord } from "../protocol/is-record.ts"

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
    return `${this.count === 1 ? "a configuration warning is" : `${this.count} configuration warnings are`} an error with --strict; fix anvil.json (see above)`
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
}

/** Deep merge: objects merge key by key, anything else is replaced. */
export const mergeConfig = (base: ConfigData, over: ConfigData): ConfigData => {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) out[k] = isRecord(v) && isRecord(out[k]) ? mergeConfig(out[k] as ConfigData, v) : v
  return out
}

const lookup = (data: ConfigData, key: string): unknown =>
  key.split(".").reduce<unknown>((node, part) => (isRecord(node) ? node[part] : undefined), data)

const sameKind = (value: unknown, fallback: unknown): boolean =>
  Array.isArray(fallback) ? Array.isArray(value) : isRecord(fallback) ? isRecord(value) : typeof value === typeof fallback

export const makeConfig = (
  data: ConfigData,
  env: ConfigShape["env"],
  sources: ReadonlyArray<string> = [],
  layers: ReadonlyArray<ConfigLayer> = [],
  warnings: ReadonlyArray<ConfigWarning> = [],
): ConfigShape => ({
  data,
  env,
  sources,
  layers,
  warnings,
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
 * A configuration file's value (and syntax tree, when it was needed to read it). Plain JSON, most
 * files, is read by JSON.parse, which gives the same value; the JSONC parser is loaded only for
 * comments, trailing commas and errors.
 */
const parseConfigText = (file: string, text: string) =>
  Effect.gen(function* () {
    try {
      return { value: JSON.parse(text) as unknown, tree: undefined }
    } catch {
      // Not plain JSON: JSONC below.
    }
    const { JsoncSyntaxError, parseJsoncTree } = yield* Effect.promise(() => import("./jsonc.ts"))
    const parsed = parseJsoncTree(text)
    if (parsed instanceof JsoncSyntaxError) return yield* new ConfigError(`${file}: not valid JSON (${parsed.message}). Fix or remove the file.`)
    return parsed
  })

export class Config extends Context.Service<Config, ConfigShape>()("anvil/Config") {
  /**
   * Reads `~/.config/anvil/anvil.json` (or $XDG_CONFIG_HOME) and `<root>/anvil.json`;
   * a file that does not parse is a ConfigError naming it, keys the Schema does not
   * know or values of the wrong type are warnings (see `checkConfig`).
   */
  static load = Effect.fn("Config.load")(function* (options: ConfigOptions) {
    const fs = yield* FileSystem
    const path = yield* Path
    const home = options.env.HOME ?? options.env.USERPROFILE
    const configHome = options.env.XDG_CONFIG_HOME ?? (home ? path.join(home, ".config") : undefined)
    const candidates: ReadonlyArray<{ file: string; source: ConfigSource }> = [
      ...(configHome ? [{ file: path.join(configHome, "anvil", "anvil.json"), source: "user file" as const }] : []),
      { file: path.join(options.root, "anvil.json"), source: "project file" },
    ]
    let data: ConfigData = {}
    const sources: Array<string> = []
    const layers: Array<ConfigLayer> = []
    const warnings: Array<ConfigWarning> = []
    for (const { file, source } of candidates) {
      const text = yield* fs.readFileString(file).pipe(Effect.option)
      if (text._tag === "None") continue
      const parsed = yield* parseConfigText(file, text.value)
      if (!isRecord(parsed.value)) return yield* new ConfigError(`${file}: the top level must be an object.`)
      if (Object.keys(parsed.value).length > 0) {
        // The Schema of every setting is made only when there are settings to check.
        const { checkConfig } = yield* Effect.promise(() => import("./check.ts"))
        warnings.push(...checkConfig(file, text.value, parsed.tree, parsed.value))
      }
      data = mergeConfig(data, parsed.value)
      sources.push(file)
      layers.push({ source, file, data: parsed.value })
    }
    if (options.overrides) {
      data = mergeConfig(data, options.overrides)
      layers.push({ source: "overrides", data: options.overrides })
    }
    return makeConfig(data, options.env, sources, layers, warnings)
  })

  static layer = (options: ConfigOptions) => Layer.effect(Config, Config.load(options))

  /** A fixed configuration, for tests and embedding. */
  static layerFrom = (data: ConfigData = {}, env: ConfigShape["env"] = {}) => Layer.succeed(Config, makeConfig(data, env))
}
