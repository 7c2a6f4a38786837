import { shownValue } from "../protocol/shown-value.ts"
import { stopAllManaged } from "../process/managed-registry.ts"
import { outputLostMessage } from "./output-lost.ts"
import { installSignalRouting } from "./signals.ts"
import { disarmStopBackstop } from "./stop-backstop.ts"
import { statSync } from "node:fs"
import { resolve } from "node:path"
import { ConfigError, ConfigStrictError } from "../config/config.ts"
import { loadBuiltinTool, loadBuiltinTools } from "../tools/builtin.ts"
import { VERSION } from "../version.ts"
import { parseGlobal, UsageError, type GlobalArgs } from "./args.ts"
import { EXIT } from "./exit-codes.ts"
import { GLOBAL_HELP, TOOL_HELP } from "./help-text.ts"
import { processIO, type CliIO } from "./output.ts"
import { hasPlugins, projectOf } from "./project.ts"
import { toolCommand } from "./tool-command.ts"
import { parseToolArgs } from "./tool-args.ts"

/** Runs the CLI; returns the exit code (0 success or partial, 1 error, 2 usage). */
export const main = async (argv: ReadonlyArray<string>, io: CliIO = processIO()): Promise<number> => {
  installSignalRouting()
  let code: number
  try {
    code = await dispatch(argv, io)
  } finally {
    // Whatever anvil started (servers, background processes of finished commands) ends with it.
    await stopAllManaged()
    await io.flush?.()
    disarmStopBackstop()
  }
  // The answer did not reach standard output (not its reader leaving: that ends quietly): said, and no success.
  const failed = io.outputFailed?.()
  if (failed === undefined) return code
  io.err(outputLostMessage(failed))
  await io.flush?.()
  return code === 0 ? 1 : code
}

const dispatch = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  let command: string | undefined
  let rest: ReadonlyArray<string> = []
  try {
    const global = parseGlobal(argv)
    command = global.rest[0]
    rest = global.rest.slice(1)
    checkRoot(global.root ?? io.env.ANVIL_ROOT, io.cwd, global.root !== undefined ? "--root" : "ANVIL_ROOT")
    // --version is answered wherever it stands (`anvil run --version`), as --help is; --help wins when both are given.
    if (global.version && (command === undefined || !global.help)) {
      io.out(`anvil ${VERSION}\n`)
      return 0
    }
    // Claude Code's print-mode flags and no subcommand: the Agent SDK (or a script written for `claude -p`) drives anvil.
    if ((command === undefined || command.startsWith("-")) && !global.help && (await import("../host/print-flags.ts")).isPrintInvocation(global.rest)) {
      const { sdkHostCommand } = await import("../host/sdk-host.ts")
      return await sdkHostCommand(global.rest, io, global.root, await loadBuiltinTools())
    }
    if (command === undefined) {
      // `anvil` alone in a terminal is the chat.
      if (!global.help && process.stdin.isTTY && process.stdout.isTTY) {
        const { chatCommand } = await import("./chat-command.ts")
        return await chatCommand([], io, global.root, await loadBuiltinTools(), global.strict)
      }
      io.out(GLOBAL_HELP)
      return global.help ? 0 : 2
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command as CommandName] : undefined
    if (run) return await run({ global, rest, io })
    // `anvil --continue`, `anvil --model x`: chat options without the word.
    if (command.startsWith("-") && !global.help) {
      // `anvil --trust-plugins tool read …`: a command's options go after its word, whether chat knows them or not.
      const word = global.rest.find((a) => COMMAND_NAMES.includes(a))
      if (word !== undefined) {
        const flags = global.rest.filter((a) => a.startsWith("-"))
        // A direct tool call never asks (it runs as the user who typed it), so run's and chat's --yes or --allow
        // moved behind `tool` would only become unknown tool parameters.
        const foreign = word === "tool" ? flags.filter((f) => !TOOL_CALL_OPTIONS.includes(f.split("=")[0]!)) : []
        if (foreign.length > 0) {
          throw new UsageError(`anvil tool takes no ${foreign.join(" ")}: a direct tool call runs as the user who typed it ('ask' tools run; a deny in anvil.json still refuses)`)
        }
        throw new UsageError(`anvil: options go after the command: anvil ${word} … ${flags.join(" ")}`)
      }
      const { chatCommand } = await import("./chat-command.ts")
      return await chatCommand(global.rest, io, global.root, await loadBuiltinTools(), global.strict)
    }
    throw new UsageError(`unknown command ${shownValue(command)}`)
  } catch (e) {
    if (e instanceof ConfigStrictError) {
      // --strict and anvil.json (or the environment) has warnings, printed above: a usage error, before the command did anything.
      if (command === "run") (await import("./run-setup-failure.ts")).printRunSetupFailure(io, command, rest, e.message, EXIT.usage)
      io.err(`anvil${command && COMMAND_NAMES.includes(command) ? ` ${command}` : ""}: ${e.message}\n`)
      return EXIT.usage
    }
    if (e instanceof UsageError) {
      // A run asked for json gets its result on stdout too (loaded only for run, as below).
      if (command === "run") (await import("./run-setup-failure.ts")).printRunUsageFailure(io, rest, prefixed(e.message), e.kind, EXIT.usage)
      io.err(`${prefixed(e.message)}\nRun 'anvil --help' for usage.\n`)
      return EXIT.usage
    }
    const inner = (e as { cause?: unknown })?.cause ?? e
    if (inner instanceof ConfigError || e instanceof ConfigError) {
      const message = ((inner instanceof ConfigError ? inner : e) as Error).message
      // Loaded only for run: its argument parser and result shape stay out of the other commands' start.
      if (command === "run") (await import("./run-setup-failure.ts")).printRunSetupFailure(io, command, rest, message, EXIT.config)
      io.err(`${prefixed(message)}\n`)
      return EXIT.config
    }
    io.err(`anvil: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    return 1
  }
}

/** What a command word's handler gets: the global options, the words after the command, the process I/O. */
interface Invocation {
  readonly global: GlobalArgs
  readonly rest: ReadonlyArray<string>
  readonly io: CliIO
}

/** A command module's help text and handler (of the words after the command, the I/O and `--root`). */
interface Subcommand {
  readonly help: string
  readonly run: (rest: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict: boolean) => Promise<number>
}

/** A command whose module is imported when its word is used: its help with --help, else its handler. */
const subcommand =
  (load: () => Promise<Subcommand>) =>
  async ({ global, rest, io }: Invocation): Promise<number> => {
    const command = await load()
    return global.help ? help(io, command.help) : await command.run(rest, io, global.root, global.strict)
  }

/**
 * Every `anvil COMMAND`: the one table the dispatch runs and the words {@link COMMAND_NAMES} lists
 * (options before one of them are refused). Each handler imports its command's module when it runs.
 */
const COMMANDS = {
  // `anvil help COMMAND` is `anvil COMMAND --help`; `anvil help` the overview.
  help: async ({ rest, io }: Invocation) =>
    rest[0] === undefined || rest[0] === "help" ? help(io, GLOBAL_HELP) : await dispatch([rest[0], "--help"], io),
  tools: async ({ global, rest, io }: Invocation) => {
    if (global.help) return help(io, "Usage: anvil tools [--json]\n")
    onlyArguments("anvil tools", rest, ["--json"])
    const { toolsListCommand } = await import("./tools-list.ts")
    return await toolsListCommand(io, global.root, rest.includes("--json"), global.strict === true)
  },
  tool: async ({ global, rest, io }: Invocation) => {
    if (global.help) {
      const { loaderNamed, toolHelp } = await import("./tools-command.ts")
      const tool = rest[0] ? ((await loadBuiltinTool(rest[0])) ?? loaderNamed(rest[0])) : undefined
      if (tool) return help(io, toolHelp(tool))
      const { cliPlugins } = await import("./plugin-setup.ts")
      const { plugins } = rest[0] ? await cliPlugins(io, global.root, { quiet: true }) : { plugins: undefined }
      const fromPlugin = plugins?.tools.find((t) => t.name.toLowerCase() === rest[0]!.toLowerCase())
      if (fromPlugin) return help(io, toolHelp(fromPlugin))
      // A name that reaches no tool is an error (as the call itself would be), not the overview in its place.
      if (rest[0] !== undefined && !rest[0].startsWith("-") && !rest[0].toLowerCase().startsWith("mcp__")) throw new UsageError(`anvil tool: unknown tool ${shownValue(rest[0])} (see \`anvil tools\`)`)
      return help(io, TOOL_HELP)
    }
    const args = await parseToolArgs(rest, io)
    if (args.name.toLowerCase().startsWith("mcp__")) {
      const { mcpToolCommand } = await import("./mcp-tool-command.ts")
      return await mcpToolCommand(args, io, global.root, global.strict)
    }
    // Only the named tool is loaded; an unknown name loads all, for the list of what exists.
    const one = await loadBuiltinTool(args.name)
    // With --strict, the configuration's warnings stop the call here, before any plugin is loaded.
    const project = await projectOf(io, global.root, { strict: global.strict })
    if (!(await hasPlugins(project, io.env))) {
      return await toolCommand(args, one ? [one] : await loadBuiltinTools(), io, global.root, undefined, undefined, global.strict, project)
    }
    // A plugin's hooks may run (and change the work tree) before the tool: a git started before them is not its answer.
    const { discardEarlyGit } = await import("../git/early-git.ts")
    discardEarlyGit()
    const { pluginToolsFor } = await import("./tool-plugins.ts")
    return await toolCommand(args, one ? [one] : [], io, global.root, pluginToolsFor(args, io, { named: one !== undefined }), undefined, global.strict, project)
  },
  plugins: subcommand(async () => {
    const { pluginsCommand, PLUGINS_HELP } = await import("./plugins-command.ts")
    return { help: PLUGINS_HELP, run: pluginsCommand }
  }),
  run: async ({ global, rest, io }: Invocation) => {
    if (global.help) return help(io, (await import("./run-help.ts")).RUN_HELP)
    const { runCommand } = await import("./run-command.ts")
    return await runCommand(rest, io, global.root, await loadBuiltinTools(), global.strict)
  },
  chat: async ({ global, rest, io }: Invocation) => {
    const { chatCommand, CHAT_HELP } = await import("./chat-command.ts")
    if (global.help) return help(io, CHAT_HELP)
    return await chatCommand(rest, io, global.root, await loadBuiltinTools(), global.strict)
  },
  sandbox: subcommand(async () => {
    const { sandboxCommand, SANDBOX_HELP } = await import("./sandbox-command.ts")
    return { help: SANDBOX_HELP, run: sandboxCommand }
  }),
  sessions: subcommand(async () => {
    const { sessionsCommand, SESSIONS_HELP } = await import("./sessions-command.ts")
    return { help: SESSIONS_HELP, run: sessionsCommand }
  }),
  mcp: subcommand(async () => {
    const { mcpCommand, MCP_HELP } = await import("./mcp-command.ts")
    return { help: MCP_HELP, run: mcpCommand }
  }),
  skills: subcommand(async () => {
    const { skillsCommand, SKILLS_HELP } = await import("./skills-command.ts")
    return { help: SKILLS_HELP, run: skillsCommand }
  }),
  config: async ({ global, rest, io }: Invocation) => {
    const { configCommand, CONFIG_HELP } = await import("./config-command.ts")
    if (global.help) return help(io, CONFIG_HELP)
    return await configCommand(rest, io, global.root, global.strict)
  },
  // Checks the embedded skills and rg of a built executable (CI's smoke test, and a user's first check).
  "self-check": async ({ global, rest, io }: Invocation) => {
    if (global.help) return help(io, "Usage: anvil self-check\n\nChecks that the executable's embedded skills and ripgrep work; exit 0 when they do.\n")
    onlyArguments("anvil self-check", rest, [])
    const { selfCheckCommand } = await import("./self-check-command.ts")
    return await selfCheckCommand(io)
  },
} satisfies Record<string, (invocation: Invocation) => Promise<number>>

type CommandName = keyof typeof COMMANDS

/** The words `anvil COMMAND` takes: the keys of the dispatch table. */
/** The options `anvil tool` itself takes; any other `--key` after the tool's name is a parameter of the tool. */
const TOOL_CALL_OPTIONS: ReadonlyArray<string> = ["--text", "--meta", "--sandbox", "--trust-plugins", "--trust-mcp"]

export const COMMAND_NAMES: ReadonlyArray<string> = Object.keys(COMMANDS)

/** One "anvil…:" prefix: messages that already name their command ("anvil run: …") keep theirs. */
const prefixed = (message: string) => (/^anvil(?: [\w-]+){0,3}: /.test(message) ? message : `anvil: ${message}`)

/** A --root (or ANVIL_ROOT) that is not a folder is an error, never a folder to create. */
const checkRoot = (root: string | undefined, cwd: string, what: string) => {
  if (root === undefined) return
  const dir = resolve(cwd, root)
  let isDir = false
  try {
    isDir = statSync(dir).isDirectory()
  } catch {
    throw new ConfigError(`${what} ${root}: no such folder (${dir}). Give an existing project folder.`)
  }
  if (!isDir) throw new ConfigError(`${what} ${root}: not a folder (${dir}).`)
}

/** A command that takes only the flags named refuses anything else, as the commands with subcommands do. */
const onlyArguments = (command: string, rest: ReadonlyArray<string>, allowed: ReadonlyArray<string>) => {
  const other = rest.find((a) => !allowed.includes(a))
  if (other !== undefined) throw new UsageError(`${command}: unexpected argument ${shownValue(other)}${allowed.length > 0 ? ` (it takes ${allowed.join(", ")})` : " (it takes none)"}`)
}

const help = (io: CliIO, text: string) => {
  io.out(text)
  return 0
}
