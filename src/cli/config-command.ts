import { Effect } from "effect"
import { Path } from "effect/Path"
import { Config, ConfigStrictError } from "../config/config.ts"
import { effectiveSettings, type EffectiveSetting } from "../config/effective.ts"
import { configJsonSchema } from "../config/schema.ts"
import { PlatformLive } from "../runtime.ts"
import { findProjectRoot } from "../workspace/project-root.ts"
import { flagValue, UsageError } from "./args.ts"
import { printConfigWarnings } from "./config-warnings.ts"
import type { CliIO } from "./output.ts"

export const CONFIG_HELP = `Usage: anvil config [--json] [--model M] [--max-steps N] [--engine E] [--verify CMD | --no-verify]
       anvil config schema

anvil config prints the effective configuration: every setting that has a value and where
that value came from (default, user file, project file, environment, flag). The agent flags
given here are shown as they would apply to 'anvil run' and 'anvil chat'.
Keys anvil.json has that anvil does not know, and values of the wrong type, are warnings on
stderr (errors with --strict, exit code 2).

anvil config schema prints the JSON Schema of anvil.json. Save it and name it in the file
so editors complete and check keys:
  anvil config schema > anvil.schema.json
  { "$schema": "./anvil.schema.json", ... }
`

/** The agent flags that set a configuration key, as `anvil run` and `anvil chat` read them. */
const FLAGS: Readonly<Record<string, string>> = { "--model": "model", "-m": "model", "--max-steps": "max_steps", "--engine": "engine", "--verify": "verify" }

const parseFlags = (argv: ReadonlyArray<string>) => {
  let json = false
  const flags: Record<string, { value: unknown; flag: string }> = {}
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!
    const eq = raw.startsWith("--") ? raw.indexOf("=") : -1
    const flag = eq > 0 ? raw.slice(0, eq) : raw
    if (flag === "--json") json = true
    else if (flag === "--no-verify") flags.verify = { value: "", flag }
    else if (FLAGS[flag] !== undefined) {
      const text = eq > 0 ? raw.slice(eq + 1) : argv[++i]
      if (text === undefined) throw new UsageError(`anvil config: ${flag} needs a value`)
      flags[FLAGS[flag]] = { value: flag === "--max-steps" ? flagValue(text) : text, flag }
    } else throw new UsageError(`anvil config: unknown argument '${raw}' (see anvil config --help)`)
  }
  return { json, flags }
}

const origin = (s: EffectiveSetting) => (s.from ? `${s.source} ${s.from}` : s.source)

/** `anvil config` and `anvil config schema`; returns the exit code. */
export const configCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict: boolean): Promise<number> => {
  if (argv[0] === "schema") {
    if (argv.length > 1) throw new UsageError(`anvil config schema: unexpected argument '${argv[1]}'`)
    io.out(`${JSON.stringify(configJsonSchema(), null, 2)}\n`)
    return 0
  }
  const { json, flags } = parseFlags(argv)
  const config = await Effect.runPromise(
    Effect.gen(function* () {
      const given = root ?? io.env.ANVIL_ROOT
      const projectRoot = given ? (yield* Path).resolve(io.cwd, given) : yield* findProjectRoot(io.cwd)
      return yield* Config.load({ root: projectRoot, env: io.env })
    }).pipe(Effect.provide(PlatformLive)),
  )
  printConfigWarnings(io, config.warnings)
  if (strict && config.warnings.length > 0) {
    io.err(`anvil config: ${new ConfigStrictError({ count: config.warnings.length }).message}\n`)
    return 2
  }
  const settings = effectiveSettings(config, flags)
  if (json) {
    io.out(`${JSON.stringify({ files: config.layers.map((l) => ({ source: l.source, file: l.file })), settings, warnings: config.warnings }, null, 2)}\n`)
    return 0
  }
  const files = config.layers.filter((l) => l.file).map((l) => `${l.source} ${l.file}`)
  io.out(`# files read: ${files.length > 0 ? files.join(", ") : "none (defaults only)"}\n`)
  const width = Math.max(...settings.map((s) => s.key.length))
  for (const s of settings) io.out(`${s.key.padEnd(width)}  ${JSON.stringify(s.value)}  (${origin(s)})\n`)
  return 0
}
