import { Deferred, Effect } from "effect"
import * as readline from "node:readline"
import { AgentSetupError, openAgentSession, type AgentSession } from "../agent/agent-session.ts"
import { initialMcpEvents, mcpHumanLine } from "./mcp-events.ts"
import type { TurnResult } from "../agent/events.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makePrinter } from "../terminal/event-printer.ts"
import { askHostInTerminal, askInTerminal } from "../terminal/permission-prompt.ts"
import { sandboxLine } from "../sandbox/summary.ts"
import { makeSpinner } from "../terminal/spinner.ts"
import { colorEnabled, makeStyle, type Style } from "../terminal/style.ts"
import { VERSION } from "../version.ts"
import { parseAgentArgs, sessionOptionsOf } from "./agent-args.ts"
import { pluginNotices } from "../plugins/plugin-host.ts"
import { guardNodeStreams, type CliIO } from "./output.ts"
import { EXIT_SIGNALS, watchSignals, type ExitSignal } from "./signals.ts"
import { approvals, terminalOf } from "./run-command.ts"

export const CHAT_HELP = `Usage: anvil [chat] [options]

An interactive session in the terminal: type a request, watch the agent work, type the next.
Ctrl-C cancels the running turn (the running tool is stopped) and returns to the prompt;
Ctrl-C on an empty prompt twice, Ctrl-D or /exit quits.

Options: --model, --profile (code, plan, explore, test), --plan, --engine native|react, --react,
--continue, --session ID, --max-steps N, --yes, --trust-plugins, --trust-mcp, --allow RULE, --verify CMD, --no-verify,
--sandbox MODE, --show-raw (print raw model responses) — as for 'anvil run'.

In the chat: /help, /tools, /session, /exit.
`

const compact = (n: number) => (n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n))

const turnLine = (result: TurnResult, style: Style): string => {
  const facts = `${result.stats.steps} step${result.stats.steps === 1 ? "" : "s"}, ${result.stats.tool_calls} tool call${result.stats.tool_calls === 1 ? "" : "s"}, ${compact(result.usage.inputTokens)} in / ${compact(result.usage.outputTokens)} out tokens`
  if (result.status === "cancelled") return style.yellow(`(cancelled — ${facts})`)
  if (result.status === "error") return style.red(`(stopped: ${result.reason} — ${facts})`)
  return style.dim(`(${facts})`)
}

/**
 * `anvil chat` (and `anvil` alone in a terminal). Lines are read with
 * readline; while a turn runs the terminal is in its normal mode, so Ctrl-C
 * arrives as SIGINT and cancels the turn (tools run in their own process
 * groups and do not see it). Without a terminal, each line of standard input
 * is one turn.
 */
export const chatCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, tools: ReadonlyArray<Tool>): Promise<number> => {
  const args = parseAgentArgs(argv, "chat")
  guardNodeStreams()
  const terminal = await terminalOf(io)
  const tty = terminal.interactive && process.stdout.isTTY === true
  const outStyle = makeStyle(colorEnabled(process.stdout, io.env))
  const errStyle = makeStyle(colorEnabled(process.stderr, io.env))
  // Ctrl-C at an approval prompt refuses the call and cancels the turn.
  let cancelTurn: () => void = () => undefined
  const spinner = makeSpinner(process.stderr)
  const prompt = askInTerminal(terminal, errStyle, io.cwd, () => cancelTurn())
  const onAsk = approvals(tty, args.yes, spinner, prompt)
  const printer = makePrinter({
    out: io.out,
    err: io.err,
    outStyle,
    errStyle,
    spinner,
    streamText: true,
    details: true,
    showRaw: args.showRaw,
    react: args.engine === "react",
  })

  let session: AgentSession
  try {
    session = await openAgentSession({
      ...sessionOptionsOf(args, io, root, tools),
      onAsk,
      ...(tty && io.terminal ? { terminal: io.terminal } : {}),
      onSubagentEvent: (parent, event) => printer(event, parent),
      mcp: {
        trustProject: args.trustMcp,
        onEvent: (event) => {
          const text = mcpHumanLine(event)
          if (text) io.err(errStyle.yellow(text))
        },
      },
      ...(tty && !args.yes ? { askHost: (host: string) => askHostInTerminal(terminal, errStyle, spinner)(host) } : {}),
    })
  } catch (e) {
    if (e instanceof AgentSetupError) {
      io.err(`anvil chat: ${e.message}\n`)
      return 2
    }
    throw e
  }
  const react = session.engine === "react"
  const print = react === (args.engine === "react") ? printer : makePrinter({ out: io.out, err: io.err, outStyle, errStyle, spinner, streamText: true, details: true, showRaw: args.showRaw, react })

  io.err(
    `${errStyle.bold(`anvil ${VERSION}`)} ${errStyle.dim(`— ${session.model.id}, ${session.profile.name} profile${react ? ", ReAct" : ""}, session ${session.id}${session.resumed ? ` (resumed, ${session.conversation.items.length} items)` : ""}`)}\n` +
      `${errStyle.dim(`sandbox: ${sandboxLine(session.sandbox)}`)}\n` +
      (session.sandbox.warning ? `${errStyle.yellow(`warning: ${session.sandbox.warning}`)}\n` : "") +
      `${errStyle.dim("Ctrl-C cancels a turn; Ctrl-D or /exit quits; /help for commands.")}\n`,
  )
  const loadedPlugins = session.plugins.reports.filter((r) => r.status === "loaded").map((r) => r.name)
  if (loadedPlugins.length > 0) io.err(`${errStyle.dim(`plugins: ${loadedPlugins.join(", ")}`)}\n`)
  for (const notice of pluginNotices(session.plugins)) io.err(`${errStyle.yellow(`plugin: ${notice}`)}\n`)
  for (const event of initialMcpEvents(session.mcp)) {
    const text = mcpHumanLine(event)
    if (text) io.err(errStyle.yellow(text))
  }

  const history: Array<string> = []
  // SIGTERM and SIGHUP (and SIGINT while no turn runs and no prompt reads the keys) end the session:
  // the prompt closes, a running turn is cancelled, and every process anvil started is ended.
  let quitSignal: ExitSignal | undefined
  let closePrompt: () => void = () => undefined
  let stopQuitWait: () => void = () => undefined
  const quitting = new Promise<undefined>((resolve) => (stopQuitWait = () => resolve(undefined)))
  const quit = (signal: ExitSignal) => {
    quitSignal ??= signal
    closePrompt()
    stopQuitWait()
  }
  const sessionSignals = watchSignals(quit)
  // Without a terminal: one reader for the whole input, one line per turn.
  const pipedInput = tty ? undefined : readline.createInterface({ input: process.stdin, terminal: false })
  const piped = pipedInput?.[Symbol.asyncIterator]()
  if (pipedInput) closePrompt = () => pipedInput.close()
  const ask = (): Promise<string | undefined> =>
    quitSignal !== undefined
      ? Promise.resolve(undefined)
      : Promise.race([piped ? piped.next().then((r) => (r.done ? undefined : r.value)) : askTty(), quitting])
  const askTty = (): Promise<string | undefined> =>
    new Promise((resolve) => {
      const rl = readline.createInterface({
        input: process.stdin,
        output: process.stdout,
        terminal: true,
        history: [...history],
        historySize: 500,
      } as readline.ReadLineOptions)
      let done = false
      let armed = false
      const finish = (value: string | undefined) => {
        if (done) return
        done = true
        // close() alone: removing the interface's listeners first would leave its keypress handler on stdin.
        rl.close()
        resolve(value)
      }
      closePrompt = () => finish(undefined)
      rl.on("line", (line) => finish(line))
      rl.on("close", () => finish(undefined))
      rl.on("SIGINT", () => {
        if (rl.line !== "") {
          // Clear what was typed.
          ;(rl as unknown as { line: string }).line = ""
          rl.write(null as unknown as string, { ctrl: true, name: "u" })
          return
        }
        if (armed) finish(undefined)
        else {
          armed = true
          io.out(`\n${outStyle.dim("(Ctrl-C again, Ctrl-D or /exit to quit)")}\n`)
          rl.prompt()
        }
      })
      rl.setPrompt(outStyle.bold.cyan("› "))
      rl.prompt()
    })

  const runOne = async (prompt: string) => {
    const cancel = Effect.runSync(Deferred.make<void>())
    const cancelNow = () => {
      spinner.stop()
      io.err(`\n${errStyle.yellow("cancelling…")}\n`)
      Effect.runSync(Deferred.succeed(cancel, undefined))
    }
    // Ctrl-C cancels the turn; a second one KILLs what it started; TERM and HUP also end the session.
    const turnSignals = watchSignals(
      (signal) => {
        if (signal !== "SIGINT") quit(signal)
        cancelNow()
      },
      (signal) => io.err(`\nanvil: ${signal}: stopped; every process anvil started was ended.\n`),
    )
    cancelTurn = cancelNow
    try {
      const result = await session.runTurn(prompt, { emit: (e) => print(e), cancelled: Deferred.await(cancel) })
      spinner.stop()
      io.err(`${turnLine(result, errStyle)}\n`)
    } finally {
      turnSignals.dispose()
      cancelTurn = () => undefined
    }
  }

  try {
    for (;;) {
      const line = await ask()
      if (line === undefined) break
      const prompt = line.trim()
      if (prompt === "") continue
      history.unshift(line)
      if (prompt === "/exit" || prompt === "/quit") break
      if (prompt === "/help") {
        io.err(`${CHAT_HELP}\n`)
        continue
      }
      if (prompt === "/tools") {
        io.err(`${session.tools.map((t) => t.name).join(", ")}\n`)
        continue
      }
      if (prompt === "/session") {
        io.err(`session ${session.id} (${session.file}), ${session.conversation.items.length} items; continue it with --session ${session.id}\n`)
        continue
      }
      await runOne(prompt)
    }
  } finally {
    sessionSignals.dispose()
    closePrompt()
    await session.dispose()
  }
  if (quitSignal !== undefined) {
    io.err(`anvil: ${quitSignal}: session ${session.id} saved; every process anvil started was ended.\n`)
    return EXIT_SIGNALS[quitSignal]
  }
  if (tty) io.err(`${errStyle.dim(`Session ${session.id} saved; continue it with 'anvil chat --continue'.`)}\n`)
  return 0
}
