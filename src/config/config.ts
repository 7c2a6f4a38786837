import { Context, Effect, Layer } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Path } from "effect/Path"
import { parseJsonc } from "./jsonc.ts"

/** anvil.json as a plain object: project settings over user settings. */
export type ConfigData = Readonly<Record<string, unknown>>

/** `""` reads as string, `0` as number: a fallback's literal type does not narrow the setting. */
export type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T

/** A configuration file that could not be used, with where and why. */
export class ConfigError extends Error {
  readonly _tag = "ConfigError"
}

/** The merged configuration (user file, then project file) and the process environment it was read with. */
export interface ConfigShape {
  readonly data: ConfigData
  /** The environment variables anvil was started with; read here, never from `process.env` inside tools. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The files that were read, in order of precedence (lowest first). */
  readonly sources: ReadonlyArray<string>
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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

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

export const makeConfig = (data: ConfigData, env: ConfigShape["env"], sources: ReadonlyArray<string> = []): ConfigShape => ({
  data,
  env,
  sources,
  get: (key, fallback) => {
    const value = lookup(data, key)
    return (value !== undefined && sameKind(value, fallback) ? value : fallback) as Widen<typeof fallback>
  },
  count: (key, fallback) => {
    const value = lookup(data, key)
    return typeof value === "number" && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback
  },
})

export class Config extends Context.Service<Config, ConfigShape>()("anvil/Config") {
  /** Reads `~/.config/anvil/anvil.json` (or $XDG_CONFIG_HOME) and `<root>/anvil.json`; a broken file is a ConfigError naming it. */
  static load = Effect.fn("Config.load")(function* (options: ConfigOptions) {
    const fs = yield* FileSystem
    const path = yield* Path
    const home = options.env.HOME ?? options.env.USERPROFILE
    const configHome = options.env.XDG_CONFIG_HOME ?? (home ? path.join(home, ".config") : undefined)
    const candidates = [
      ...(configHome ? [path.join(configHome, "anvil", "anvil.json")] : []),
      path.join(options.root, "anvil.json"),
    ]
    let data: ConfigData = {}
    const sources: Array<string> = []
    for (const file of candidates) {
      const text = yield* fs.readFileString(file).pipe(Effect.option)
      if (text._tag === "None") continue
      const parsed = yield* Effect.try({
        try: () => parseJsonc(text.value),
        catch: (e) => new ConfigError(`${file}: not valid JSON (${(e as Error).message}). Fix or remove the file.`),
      })
      if (!isRecord(parsed)) return yield* Effect.fail(new ConfigError(`${file}: the top level must be an object.`))
      data = mergeConfig(data, parsed)
      sources.push(file)
    }
    if (options.overrides) data = mergeConfig(data, options.overrides)
    return makeConfig(data, options.env, sources)
  })

  static layer = (options: ConfigOptions) => Layer.effect(Config, Config.load(options))

  /** A fixed configuration, for tests and embedding. */
  static layerFrom = (data: ConfigData = {}, env: ConfigShape["env"] = {}) => Layer.succeed(Config, makeConfig(data, env))
}
