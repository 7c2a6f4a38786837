import { shownValue } from "../protocol/shown-value.ts"
import { Effect } from "effect"
import { Path } from "effect/Path"
import { Config, ConfigStrictError, makeConfig, mergeConfig, type ConfigData, type ConfigShape } from "../config/config.ts"
import { showIgnored } from "../config/ignored.ts"
import { effectiveSettings, type EffectiveSetting } from "../config/effective.ts"
import { configJsonSchema } from "../config/schema.ts"
import { PlatformLive, trustedConfig } from "../runtime.ts"
import { findProjectRoot } from "../workspace/project-root.ts"
import { UsageError } from "./args.ts"
import { parseEngine, parseMaxSteps } from "./agent-args.ts"
import { printConfigWarnings } from "./config-warnings.ts"
import type { CliIO } from "./output.ts"

export const CONFIG_HELP = `Usage: anvil config [--json] [--model M] [--max-steps N] [--engine E] [--verify CMD | --no-verify]
       anvil config schema
       anvil config trust [KEY ...]
       anvil config untrust

anvil config prints the effective configuration: every setting that has a value and where
that value came from (default, user file, project file, environment, flag). The agent flags
given here are shown as they would apply to 'anvil run' and 'anvil chat'.
Keys anvil.json has that anvil does not know, and values of the wrong type, are warnings on
stderr (errors with --strict, exit code 2).

Settings of the project's own anvil.json that a cloned repository could turn against you
apply only once you trust them: where model requests go (providers.*.base_url, headers,
api_key_env, api_key), language-server commands (lsp.*.command, args, env,
initializationOptions), permission rules that loosen (allow, or ask over your deny),
tools.grep.rg_path, tools.bash.shell and tools.fetch.credentials. Until then they are ignored, and anvil config
shows the value in force with the ignored one marked. 'anvil config trust' applies them in
this project (all that are ignored, or the KEYs named, e.g. lsp.python, providers, permission;
the project's sandbox settings too): their hash goes to ~/.config/anvil/trust.json, and a
change asks again. 'anvil config untrust' takes every such decision of this project back.

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
    else if (Object.hasOwn(FLAGS, flag)) {
      const text = eq > 0 ? raw.slice(eq + 1) : argv[++i]
      if (text === undefined) throw new UsageError(`anvil config: ${flag} needs a value`)
      // Checked as anvil run and anvil chat check them: a value they refuse is no setting to show.
      const value = flag === "--max-steps" ? parseMaxSteps(text, "config") : flag === "--engine" ? parseEngine(text, "config") : text
      flags[FLAGS[flag]!] = { value, flag }
    } else throw new UsageError(`anvil config: unknown argument ${shownValue(raw)} (see anvil config --help)`)
  }
  return { json, flags }
}

const origin = (s: EffectiveSetting) => (s.from ? `${s.source} ${s.from}` : s.source)

/** `anvil config` and `anvil config schema`; returns the exit code. */
export const configCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict: boolean): Promise<number> => {
  if (argv[0] === "schema") {
    if (argv.length > 1) throw new UsageError(`anvil config schema: unexpected argument ${shownValue(argv[1]!)}`)
    io.out(`${JSON.stringify(configJsonSchema(), null, 2)}\n`)
    return 0
  }
  const { raw, dir } = await Effect.runPromise(
    Effect.gen(function* () {
      const given = root ?? io.env.ANVIL_ROOT
      const projectRoot = given ? (yield* Path).resolve(io.cwd, given) : yield* findProjectRoot(io.cwd)
      return { raw: yield* Config.load({ root: projectRoot, env: io.env }), dir: projectRoot }
    }).pipe(Effect.provide(PlatformLive)),
  )
  if (argv[0] === "trust" || argv[0] === "untrust") {
    const { configTrustCommand } = await import("./config-trust.ts")
    return configTrustCommand(argv[0], argv.slice(1), io, raw, dir)
  }
  const { json, flags } = parseFlags(argv)
  printConfigWarnings(io, raw.warnings)
  if (strict && raw.warnings.length > 0) {
    io.err(`anvil config: ${new ConfigStrictError({ count: raw.warnings.length }).message}\n`)
    return 2
  }
  // What is in force: the project file's untrusted settings (and sandbox settings that widen) left out and marked.
  const config = await Effect.runPromise(configInForce(raw, dir))
  const ignored = config.ignored ?? []
  const settings = effectiveSettings(config, flags).map((s) => {
    const marked = ignored.filter((i) => i.key === s.key || i.key.startsWith(`${s.key}.`) || i.key.startsWith(`${s.key}[`))
    return marked.length > 0 ? { ...s, ignored: marked.map((i) => ({ key: i.key, value: i.value, file: i.file, trust: i.trust })) } : s
  })
  const steps = ignored.map((i) => ({ key: i.key, value: i.value, file: i.file, trust: i.trust, next_step: nextStep(i.path) }))
  if (json) {
    io.out(`${JSON.stringify({ files: config.layers.map((l) => ({ source: l.source, file: l.file })), settings, ignored: steps, warnings: config.warnings }, null, 2)}\n`)
    return 0
  }
  const files = config.layers.filter((l) => l.file).map((l) => `${l.source} ${l.file}`)
  io.out(`# files read: ${files.length > 0 ? files.join(", ") : "none (defaults only)"}\n`)
  const width = Math.max(...settings.map((s) => s.key.length))
  for (const s of settings) {
    const mark = "ignored" in s ? `; ignored: ${s.ignored.map((i) => showIgnored(i)).join(", ")} from the project file (not trusted)` : ""
    io.out(`${s.key.padEnd(width)}  ${JSON.stringify(s.value)}  (${origin(s)}${mark})\n`)
  }
  if (steps.length > 0) {
    io.out(`# ignored: settings of ${steps[0]!.file} that are not in force because you have not trusted them${steps.some((s) => s.trust === "changed") ? " (or they changed since)" : ""}:\n`)
    for (const s of steps) io.out(`#   ${showIgnored(s)}  (${s.next_step})\n`)
  }
  return 0
}

/** The command that applies an ignored project setting. */
const nextStep = (path: ReadonlyArray<string>) => (path[0] === "sandbox" ? "review it, then run 'anvil sandbox trust' or 'anvil config trust'" : "review it, then run 'anvil config trust'")

/**
 * The configuration `anvil run` would use: {@link trustedConfig}, and the project's sandbox settings that widen
 * the sandbox without trust left out of the project layer and listed with the other ignored settings.
 */
const configInForce = (raw: ConfigShape, dir: string) =>
  Effect.gen(function* () {
    const config = yield* trustedConfig(raw, dir)
    if (!config.layers.some((l) => l.source === "project file" && l.data.sandbox !== undefined)) return config
    const { resolveProjectSandbox } = yield* Effect.promise(() => import("../trust/project-sandbox.ts"))
    const sandbox = yield* resolveProjectSandbox(raw, dir)
    const wide = Object.entries(sandbox.ignoredValues ?? {})
    if (wide.length === 0 || sandbox.trust === undefined) return config
    const trust = sandbox.trust
    const at = config.layers.findIndex((l) => l.source === "project file")
    const project = config.layers[at]!
    const kept = { ...(project.data.sandbox as Record<string, unknown>) }
    for (const [k] of wide) delete kept[k]
    const layers = config.layers.map((l, i) => (i === at ? { ...l, data: { ...l.data, sandbox: kept } } : l))
    const ignored = [
      ...(config.ignored ?? []),
      ...wide.map(([k, value]) => ({ key: `sandbox.${k}`, path: ["sandbox", k], value, trust, file: project.file ?? "anvil.json" })),
    ]
    const data = layers.reduce<ConfigData>((d, l) => mergeConfig(d, l.data), {})
    return makeConfig(data, config.env, config.sources, layers, config.warnings, ignored)
  })
