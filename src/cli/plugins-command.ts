import { shownValue } from "../protocol/shown-value.ts"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { Effect } from "effect"
import dts from "../../embedded/plugin-api.dts.txt" with { type: "text" }
import { classify, discoverPlugins, pluginTrustContent, userPluginsDir, type DiscoveredPlugin } from "../plugins/discovery.ts"
import { loadPlugins, pluginNotices, pluginSettings, type PluginReport, type PluginSet } from "../plugins/plugin-host.ts"
import { toolNameProblem } from "../plugins/plugin-shape.ts"
import { makeTrust } from "../trust/trust.ts"
import { frontMatterHookSubjects } from "./front-matter-trust.ts"
import { ignoredSettingsNotice } from "../config/ignored.ts"
import { UsageError } from "./args.ts"
import type { CliIO } from "./output.ts"
import { builtinNames, cliPlugins } from "./plugin-setup.ts"
import { projectOf, type CommandConfigOptions, type Project } from "./project.ts"

export const PLUGINS_HELP = `Usage: anvil plugins [--json]          list every plugin found: source, status, tools, hooks
       anvil plugins check PATH          load one plugin file or folder; exit code 0 when it loads cleanly,
                                         1 when it does not load (the reason is printed), 4 when it loads
                                         with warnings (a part of it that will not run, such as a hooks
                                         file that is not valid JSON, or a name to change)
       anvil plugins trust [NAME...]     trust project plugins (all untrusted ones without NAME); skill:NAME
                                         or agent:NAME trusts the front-matter hooks of a project skill or
                                         agent (.claude/skills/NAME, .claude/agents/NAME.md)
       anvil plugins untrust NAME        forget the trust of a project plugin (or skill:NAME, agent:NAME)
       anvil plugins init NAME [--user | --dir DIR]
                                         write a working plugin skeleton (index.ts, type declarations,
                                         tsconfig.json, package.json) into .anvil/plugins/NAME/
                                         (--user: ~/.config/anvil/plugins/NAME/)

Plugins come from ~/.config/anvil/plugins/ ($XDG_CONFIG_HOME/anvil/plugins/), the project's
.anvil/plugins/ and plugins.paths in anvil.json. Project plugins (anything that came with the
repository) load only once trusted; a change to their code asks again. Status: loaded,
untrusted, disabled (plugins.disabled in anvil.json) or error (with the reason).
`

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

/** The listing of `anvil plugins`. */
export const formatPlugins = (set: PluginSet, display: (p: string) => string): string => {
  // The problems are why plugins one expected are missing: never left out, least of all when none loaded.
  const problems = set.problems.flatMap((p) => ["", `Problem: ${p}`])
  if (set.reports.length === 0) {
    return [`No plugins found. Put one in .anvil/plugins/ or ~/.config/anvil/plugins/, or start with 'anvil plugins init NAME'.`, ...problems, ""].join("\n")
  }
  const width = Math.max(4, ...set.reports.map((r) => r.name.length))
  const statusOf = (r: (typeof set.reports)[number]) => (r.status === "untrusted" && r.trust === "changed" ? "untrusted (changed)" : r.status)
  const statusWidth = Math.max(9, ...set.reports.map((r) => statusOf(r).length))
  const out = [`${"NAME".padEnd(width)}  SOURCE   ${"STATUS".padEnd(statusWidth)}  PATH`]
  for (const r of set.reports) {
    out.push(`${r.name.padEnd(width)}  ${r.source.padEnd(7)}  ${statusOf(r).padEnd(statusWidth)}  ${display(r.path)}`)
    const pad = " ".repeat(width + 2)
    if (r.description) out.push(`${pad}${clip(r.description, 100)}`)
    if (r.tools.length > 0) out.push(`${pad}tools: ${r.tools.join(", ")}`)
    if (r.hooks.length > 0) out.push(`${pad}hooks: ${r.hooks.join(", ")}`)
    if (r.skills.length > 0) out.push(`${pad}skills: ${r.skills.join(", ")}`)
    if (r.mcpServers.length > 0) out.push(`${pad}mcp servers: ${r.mcpServers.join(", ")}`)
    if (r.agents && r.agents.length > 0) out.push(`${pad}agents: ${r.agents.join(", ")}`)
    if (r.commands && r.commands.length > 0) out.push(`${pad}commands: ${r.commands.map((c) => `/${c}`).join(", ")}`)
    if (r.unsupported && r.unsupported.length > 0) out.push(`${pad}not run by anvil: ${r.unsupported.join(", ")}`)
    for (const w of r.warnings ?? []) out.push(`${pad}warning: ${w}`)
    if (r.error) out.push(`${pad}error: ${r.error.file ? `${display(r.error.file)}${r.error.line ? `:${r.error.line}` : ""}: ` : ""}${r.error.message}`)
    if (r.status === "untrusted") out.push(`${pad}run 'anvil plugins trust ${r.name}' after reviewing it`)
  }
  return `${[...out, ...problems].join("\n")}\n`
}

const reportJson = (r: PluginReport) => ({ ...r })

/** The project and its configuration, read the one way every verb of `anvil plugins` reads them. */
type OpenProject = (options?: Omit<CommandConfigOptions, "strict">) => Promise<Project>

/** `anvil plugins …`; returns the exit code. */
export const pluginsCommand = async (argv: ReadonlyArray<string>, io: CliIO, rootFlag: string | undefined, strict = false): Promise<number> => {
  const [verb, ...rest] = argv
  // Every verb reads the configuration here: with --strict, its warnings stop the command before anything is loaded or written.
  const open: OpenProject = (options = {}) => projectOf(io, rootFlag, { ...options, strict })
  switch (verb) {
    case undefined:
    case "list":
    case "--json": {
      const json = argv.includes("--json")
      const unknown = argv.filter((a) => a !== "--json" && a !== "list")
      if (unknown.length > 0) throw new UsageError(`anvil plugins: unexpected argument ${shownValue(unknown[0]!)}`)
      const { root, config, plugins } = await cliPlugins(io, rootFlag, { quiet: true, strict })
      const ignored = ignoredSettingsNotice(config.ignored, "plugins")
      if (ignored) io.err(`anvil: warning: ${ignored}\n`)
      if (json) {
        io.out(`${JSON.stringify({ plugins: plugins.reports.map(reportJson), problems: plugins.problems }, null, 2)}\n`)
      } else io.out(formatPlugins(plugins, displayIn(root)))
      return 0
    }
    case "check":
      return check(rest, io, open)
    case "trust":
      return trust(rest, io, open)
    case "untrust":
      return untrust(rest, io, open)
    case "init":
      return init(rest, io, open)
    default:
      throw new UsageError(`anvil plugins: unknown subcommand ${shownValue(verb)} (list, check, trust, untrust, init)`)
  }
}

const displayIn = (root: string) => (p: string) => {
  const rel = relative(root, p)
  return rel === "" ? "." : rel.startsWith("..") ? p : rel
}

const check = async (args: ReadonlyArray<string>, io: CliIO, open: OpenProject): Promise<number> => {
  if (args.length !== 1) throw new UsageError("anvil plugins check: name one plugin file or folder")
  const path = resolve(io.cwd, args[0]!)
  if (!existsSync(path)) {
    io.err(`anvil plugins check: ${path} does not exist\n`)
    return 1
  }
  // The user names it: it is checked as their own, without the trust question.
  const found: DiscoveredPlugin | undefined = classify(path, "user")
  if (!found) {
    io.err(`anvil plugins check: ${path} is not a plugin (a .ts/.js file, a folder with package.json or index.ts, or a Claude Code plugin folder)\n`)
    return 1
  }
  const { root, config } = await open({ trusted: true })
  const set = await loadPlugins({ root, env: io.env, config, builtinNames: builtinNames(), only: [found], retryTimedOut: true, onProblem: (m) => io.err(`anvil: ${m}\n`) })
  io.out(formatPlugins(set, displayIn(root)))
  const report = set.reports[0]
  if (report?.status !== "loaded") {
    for (const n of pluginNotices(set)) io.err(`anvil plugins check: ${n}\n`)
    return CHECK_EXIT.broken
  }
  // A warning is mostly a part of the plugin that will not run (a hooks file that is not JSON, a misspelt event): a
  // check that passed would hide it from a CI job, so it has its own exit code, apart from a plugin that does not load.
  const warnings = report.warnings?.length ?? 0
  if (warnings > 0) {
    io.err(`anvil plugins check: ${report.name} loads, with ${warnings === 1 ? "1 warning" : `${warnings} warnings`} (above); exit code ${CHECK_EXIT.warnings}\n`)
    return CHECK_EXIT.warnings
  }
  return CHECK_EXIT.clean
}

/** `anvil plugins check`'s exit codes (2 is a usage error, as everywhere). */
export const CHECK_EXIT = { clean: 0, broken: 1, warnings: 4 } as const

/** The project plugins, found without running any. */
const projectPlugins = async (io: CliIO, open: OpenProject) => {
  const { root, config } = await open()
  const found = discoverPlugins({ root, env: io.env, paths: pluginSettings(config).paths, layers: config.layers })
  return { root, config, project: found.plugins.filter((p) => p.source === "project"), trust: makeTrust({ root, env: io.env }) }
}

const trust = async (names: ReadonlyArray<string>, io: CliIO, open: OpenProject): Promise<number> => {
  const { root, config, project, trust } = await projectPlugins(io, open)
  const display = displayIn(root)
  // `skill:NAME` and `agent:NAME`: a project skill's or agent's front-matter hooks (front-matter-hooks.ts).
  const hooked = names.some((n) => /^(skill|agent):/.test(n)) ? await frontMatterHookSubjects(root, io.env, config) : []
  const missing = names.filter((n) => !project.some((p) => p.name === n) && !hooked.some((h) => h.name === n))
  if (missing.length > 0) {
    const frontMatter = missing.every((m) => /^(skill|agent):/.test(m))
    const known = frontMatter ? hooked.map((h) => h.name) : project.map((p) => p.name)
    io.err(
      `anvil plugins trust: no ${frontMatter ? "project skill or agent with hooks" : "project plugin"} named ${missing.map((m) => shownValue(m)).join(", ")}` +
        (known.length > 0 ? ` (${frontMatter ? "with hooks" : "project plugins"}: ${known.join(", ")})\n` : frontMatter ? " (no project skill or agent declares hooks)\n" : " (this project has no plugins)\n"),
    )
    return 1
  }
  const chosen = [
    ...(names.length > 0 ? project.filter((p) => names.includes(p.name)) : project).map((p) => ({
      subject: { kind: "plugin", name: p.name, content: pluginTrustContent(p) } as const,
      path: p.path,
    })),
    ...hooked.filter((h) => names.includes(h.name)).map((h) => ({ subject: { kind: h.kind, name: h.name, content: h.content }, path: h.shown })),
  ]
  if (chosen.length === 0) {
    io.out("No project plugins to trust.\n")
    return 0
  }
  let failed = 0
  for (const { subject, path } of chosen) {
    const plugin = { name: subject.name, path }
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const before = yield* trust.check(subject)
        if (before.status === "trusted" && names.length === 0) return "already"
        yield* trust.trust(subject)
        return before.status
      }).pipe(Effect.result),
    )
    if (outcome._tag === "Failure") {
      io.err(`anvil plugins trust: ${plugin.name}: ${outcome.failure.message}\n`)
      failed++
    } else if (outcome.success !== "already") {
      io.out(`trusted ${plugin.name} (${display(plugin.path)})${outcome.success === "changed" ? ": its changed code is trusted now" : ""}\n`)
    }
  }
  if (trust.file) io.out(`Trust is stored in ${trust.file}.\n`)
  return failed > 0 ? 1 : 0
}

const untrust = async (names: ReadonlyArray<string>, io: CliIO, open: OpenProject): Promise<number> => {
  if (names.length === 0) throw new UsageError("anvil plugins untrust: name the plugin")
  const { trust } = await projectPlugins(io, open)
  let status = 0
  for (const name of names) {
    const had = await Effect.runPromise(trust.untrust("plugin", name).pipe(Effect.result))
    if (had._tag === "Failure") {
      io.err(`anvil plugins untrust: ${had.failure.message}\n`)
      status = 1
    } else if (!had.success) {
      io.err(`anvil plugins untrust: '${name}' was not trusted in this project\n`)
      status = 1
    } else io.out(`untrusted ${name}\n`)
  }
  return status
}

/** The files of a new plugin: a working tool, the API's declarations, a tsconfig that finds them, a package.json. */
export const skeletonFiles = (name: string): Record<string, string> => ({
  "index.ts": `import { defineTool } from "anvil/plugin"
import { Schema } from "effect"

/**
 * ${name}: an anvil plugin tool. Try it:
 *   anvil tool ${name} '{"name": "world"}'
 * Then change the description, the parameters and run to what your tool does.
 */
export default defineTool({
  name: ${JSON.stringify(name)},
  description: "Greets someone by name. Replace this with what the tool does and when the model should use it.",
  parameters: Schema.Struct({
    name: Schema.String.annotate({ description: "Who to greet." }),
  }),
  // A read-only tool runs without asking; one that changes things asks first.
  readOnly: true,
  run: ({ name }, ctx) => ({
    text: \`Hello, \${name}! (project: \${ctx.root})\`,
    data: { greeted: name },
  }),
})
`,
  "anvil-plugin.d.ts": dts,
  "tsconfig.json": `${JSON.stringify(
    {
      compilerOptions: {
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "Bundler",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
        lib: ["ES2022", "DOM"],
        paths: { "anvil/plugin": ["./anvil-plugin.d.ts"] },
      },
      include: ["*.ts"],
    },
    null,
    2,
  )}\n`,
  "package.json": `${JSON.stringify(
    {
      name,
      private: true,
      type: "module",
      main: "index.ts",
      // For the editor and tsc only: anvil gives the plugin its own effect at run time.
      devDependencies: { effect: "4.1.0", typescript: "5.9.3" },
    },
    null,
    2,
  )}\n`,
  ".gitignore": "node_modules/\n",
})

const init = async (args: ReadonlyArray<string>, io: CliIO, open: OpenProject): Promise<number> => {
  let name: string | undefined
  let dir: string | undefined
  let user = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === "--user") user = true
    else if (a === "--dir") dir = args[++i]
    else if (a.startsWith("--dir=")) dir = a.slice(6)
    else if (a.startsWith("-")) throw new UsageError(`anvil plugins init: unknown option ${shownValue(a)}`)
    else if (name === undefined) name = a
    else throw new UsageError(`anvil plugins init: unexpected argument ${shownValue(a)}`)
  }
  if (name === undefined) throw new UsageError("anvil plugins init: name the plugin, e.g. anvil plugins init word_count")
  // The skeleton's tool takes the plugin's name: a name no plugin tool may have, or a built-in's, would give a
  // plugin that never loads or a tool that is never reached.
  const problem = toolNameProblem(name)
  if (problem !== undefined) throw new UsageError(`anvil plugins init: ${shownValue(name)} ${problem}`)
  const taken = builtinNames().find((b) => b.toLowerCase() === name!.toLowerCase())
  if (taken !== undefined) throw new UsageError(`anvil plugins init: ${shownValue(name)} is the name of the built-in tool ${shownValue(taken)}; choose another name`)
  const { root, config } = await open()
  const userDir = userPluginsDir(io.env)
  if (user && !userDir) throw new UsageError("anvil plugins init --user: neither XDG_CONFIG_HOME nor HOME is set")
  const target = dir !== undefined ? resolve(io.cwd, dir) : user ? join(userDir!, name) : join(root, ".anvil", "plugins", name)
  if (existsSync(target)) {
    io.err(`anvil plugins init: ${target} already exists; choose another name or remove it\n`)
    return 1
  }
  // A second plugin of a name is not loaded ("another plugin is already named …").
  const same = discoverPlugins({ root, env: io.env, paths: pluginSettings(config).paths, layers: config.layers }).plugins.find((p) => p.name === name)
  if (same !== undefined) {
    io.err(`anvil plugins init: a plugin named ${shownValue(name)} already exists (${same.path}), and only the first of a name loads; choose another name\n`)
    return 1
  }
  mkdirSync(target, { recursive: true })
  for (const [file, text] of Object.entries(skeletonFiles(name))) writeFileSync(join(target, file), text, { flag: "wx" })
  const display = displayIn(root)
  io.out(`created ${display(target)}/: index.ts, anvil-plugin.d.ts, tsconfig.json, package.json\n`)
  // The user just wrote it: a project skeleton is trusted as written (a later change asks again).
  const place = classify(target, "project")
  const inProject = !relative(root, target).startsWith("..")
  if (inProject && place) {
    const trusted = await Effect.runPromise(makeTrust({ root, env: io.env }).trust({ kind: "plugin", name, content: { path: target } }).pipe(Effect.result))
    if (trusted._tag === "Success") io.out(`trusted ${name} as written; after you change it, run 'anvil plugins trust ${name}'\n`)
  }
  io.out(`Try it:  anvil tool ${name} '{"name": "world"}'\n`)
  // Installed packages are part of a project plugin's trusted content: the install asks for trust again.
  const retrust = inProject && place ? `, then anvil plugins trust ${name}` : ""
  io.out(`Types:   cd ${display(target)} && npm install && npx tsc${retrust}\n`)
  return 0
}
