import { shownValue } from "../protocol/shown-value.ts"
import { Deferred, Effect, ManagedRuntime } from "effect"
import * as readline from "node:readline"
import { AgentSession, AgentSetupError, type AgentSessionShape } from "../agent/agent-session.ts"
import { initialMcpEvents, mcpHumanLine } from "./mcp-events.ts"
import type { TurnResult } from "../agent/events.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makePrinter } from "../terminal/event-printer.ts"
import { askHostInTerminal, askInTerminal, askVerifyInTerminal } from "../terminal/permission-prompt.ts"
import { incrementalCursorPos } from "../terminal/prompt-cursor.ts"
import { sandboxLine } from "../sandbox/summary.ts"
import { makeSpinner } from "../terminal/spinner.ts"
import { colorEnabled, makeStyle, type Style } from "../terminal/style.ts"
import { VERSION } from "../version.ts"
import { parseAgentArgs, sessionOptionsOf } from "./agent-args.ts"
import { UsageError } from "./args.ts"
import { pluginNotices } from "../plugins/plugin-host.ts"
import { printConfigWarnings } from "./config-warnings.ts"
import { guardNodeStreams, type CliIO } from "./output.ts"
import { EXIT_SIGNALS, watchSignals, type ExitSignal } from "./signals.ts"
import { EXIT } from "./exit-codes.ts"
import { approvals, terminalOf } from "./ask-policy.ts"

/** The chat's own commands, answered locally. */
const CHAT_COMMANDS: ReadonlyArray<readonly [string, string]> = [
  ["/help", "this help"],
  ["/tools", "the tools this session has"],
  ["/session", "the session's id and file"],
  ["/exit", "quit (also /quit, Ctrl-D)"],
]

/** How close together two lines must arrive to be one paste (a terminal without bracketed paste sends them at once). */
const PASTE_GAP_MS = 12

/** The key an approval preview is remembered by: the tool and the file or patch it changes. */
const previewKey = (name: string, input: unknown): string | undefined => {
  if (!["write", "edit", "multiedit", "patch"].includes(name.toLowerCase()) || typeof input !== "object" || input === null) return undefined
  const p = input as Record<string, unknown>
  return `${name.toLowerCase()}\0${String(p.path ?? p.file_path ?? p.patch ?? "")}`
}

export const CHAT_HELP = `Usage: anvil [chat] [options]

An interactive session in the terminal: type a request, watch the agent work, type the next.
Ctrl-C cancels the running turn (the running tool is stopped) and returns to the prompt;
Ctrl-C on an empty prompt twice, Ctrl-D or /exit quits.

Options: --model, --profile (code, plan, explore, test), --plan, --engine native|react, --react,
--continue, --session ID, --max-steps N, --yes, --trust-plugins, --trust-mcp, --allow RULE, --verify CMD, --no-verify,
--sandbox MODE, --show-raw (print raw model responses) — as for 'anvil run'.

Several lines: paste them (each pasted line waits; Enter sends all), or end a line with \\ to go on
typing on the next. Answers are rendered as Markdown in a terminal (plain text when piped).

In the chat:
${CHAT_COMMANDS.map(([name, what]) => `  ${name.padEnd(9)} ${what}`).join("\n")}
A line starting with any other /word is not sent to the model; start it with // to send it with one /.
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
export const chatCommand = async (
  argv: ReadonlyArray<string>,
  io: CliIO,
  root: string | undefined,
  tools: ReadonlyArray<Tool>,
  strict = false,
): Promise<number> => {
  const args = parseAgentArgs(argv, "chat")
  const [word] = args.words
  if (word !== undefined) {
    throw new UsageError(`anvil chat: unexpected argument ${shownValue(word)} (chat reads its prompts interactively; for a one-off prompt use anvil run "…")`)
  }
  guardNodeStreams()
  const terminal = await terminalOf(io)
  const tty = terminal.interactive && process.stdout.isTTY === true
  const outStyle = makeStyle(colorEnabled(process.stdout, io.env))
  const errStyle = makeStyle(colorEnabled(process.stderr, io.env))
  // Ctrl-C at an approval prompt refuses the call and cancels the turn.
  let cancelTurn: () => void = () => undefined
  const spinner = makeSpinner(process.stderr)
  const askPerson = askInTerminal(terminal, errStyle, io.cwd, () => cancelTurn())
  // A change whose diff the approval prompt showed is not shown again under its result.
  const previewed = new Set<string>()
  const prompt: typeof askPerson = (request) => {
    const key = previewKey(request.tool.name, request.params)
    if (key) previewed.add(key)
    return askPerson(request)
  }
  const onAsk = approvals(tty, args.yes, spinner, prompt)
  const printerOptions = {
    out: io.out,
    err: io.err,
    outStyle,
    errStyle,
    spinner,
    streamText: true,
    details: true,
    showRaw: args.showRaw,
    markdown: outStyle.level > 0,
    previewed: (name: string, input: unknown) => {
      const key = previewKey(name, input)
      return key !== undefined && previewed.delete(key)
    },
  }
  const printer = makePrinter({ ...printerOptions, react: args.engine === "react" })

  // MCP servers whose status was told while the session opened (they start then): not told again below.
  const mcpReported = new Set<string>()
  const sessionRuntime = ManagedRuntime.make(
    AgentSession.layer({
      ...sessionOptionsOf(args, io, root, tools),
      onAsk,
      strict,
      onConfigWarnings: (warnings) => printConfigWarnings(io, warnings),
      ...(tty && io.terminal ? { terminal: io.terminal } : {}),
      onSubagentEvent: (parent, event) => printer(event, parent),
      mcp: {
        trustProject: args.trustMcp,
        onEvent: (event) => {
          if (event.type === "status") mcpReported.add(event.server)
          const text = mcpHumanLine(event)
          if (text) io.err(errStyle.yellow(text))
        },
      },
      ...(tty && !args.yes ? { askHost: (host: string) => askHostInTerminal(terminal, errStyle, spinner)(host) } : {}),
      ...(tty ? { askVerify: askVerifyInTerminal(terminal, errStyle, spinner) } : {}),
    }),
  )
  let session: AgentSessionShape
  try {
    session = await sessionRuntime.runPromise(AgentSession)
  } catch (e) {
    await sessionRuntime.dispose()
    if (e instanceof AgentSetupError) {
      // As for 'anvil run': no model, a broken anvil.json or an unknown session is a configuration error (3).
      io.err(`anvil chat: ${e.message}\n`)
      return e.strictConfig ? EXIT.usage : EXIT.config
    }
    throw e
  }
  const react = session.engine === "react"
  const print = react === (args.engine === "react") ? printer : makePrinter({ ...printerOptions, react })

  io.err(
    `${errStyle.bold(`anvil ${VERSION}`)} ${errStyle.dim(`— ${session.model.id}, ${session.profile.name} profile${react ? ", ReAct" : ""}, session ${session.id}${session.resumed ? ` (resumed, ${session.conversation.items.length} items)` : ""}`)}\n` +
      `${errStyle.dim(`sandbox: ${sandboxLine(session.sandbox)}`)}\n` +
      (session.sandbox.warning ? `${errStyle.yellow(`warning: ${session.sandbox.warning}`)}\n` : "") +
      (session.sandbox.settings.projectIgnored ? `${errStyle.yellow(`warning: ${session.sandbox.settings.projectIgnored}`)}\n` : "") +
      (session.settingsIgnored ? `${errStyle.yellow(`warning: ${session.settingsIgnored}`)}\n` : "") +
      (session.verifySkipped ? `${errStyle.yellow(`warning: ${session.verifySkipped}`)}\n` : "") +
      `${errStyle.dim("Ctrl-C cancels a turn; Ctrl-D or /exit quits; /help for commands.")}\n`,
  )
  const loadedPlugins = session.plugins.reports.filter((r) => r.status === "loaded").map((r) => r.name)
  if (loadedPlugins.length > 0) io.err(`${errStyle.dim(`plugins: ${loadedPlugins.join(", ")}`)}\n`)
  for (const notice of pluginNotices(session.plugins)) io.err(`${errStyle.yellow(`plugin: ${notice}`)}\n`)
  for (const event of initialMcpEvents(session.mcp, mcpReported)) {
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
      // Echo of a long typed line stays as quick as of a short one (see prompt-cursor.ts).
      incrementalCursorPos(rl)
      let done = false
      let armed = false
      // Several lines make one prompt: a paste (bracketed, or lines arriving together), or lines ended with "\".
      const lines: Array<string> = []
      let pasting = false
      let pastedNow = false
      let lastLineAt = 0
      let continued = false
      let settle: ReturnType<typeof setTimeout> | undefined
      const onKey = (_text: string | undefined, key: readline.Key | undefined) => {
        if (key?.name === "paste-start") pasting = true
        else if (key?.name === "paste-end") {
          pasting = false
          waitForEnter()
        }
      }
      // After a paste is shown, the next line (the user's Enter) sends everything.
      let holding = false
      const waitForEnter = () => {
        holding = true
        rl.setPrompt(outStyle.dim("… "))
        io.err(`\n${errStyle.dim("(pasted; Enter sends it, or go on typing)")}\n`)
        rl.prompt(true)
      }
      const finish = (value: string | undefined) => {
        if (done) return
        done = true
        if (settle) clearTimeout(settle)
        process.stdin.off("keypress", onKey)
        // Bracketed paste off again for whatever reads the terminal next.
        process.stdout.write("\x1b[?2004l")
        // close() alone: removing the interface's listeners first would leave its keypress handler on stdin.
        rl.close()
        resolve(value)
      }
      closePrompt = () => finish(undefined)
      process.stdin.on("keypress", onKey)
      process.stdout.write("\x1b[?2004h")
      rl.on("line", (line) => {
        const now = performance.now()
        // A line right after a "\"-continued one was typed, not pasted.
        const together = now - lastLineAt < PASTE_GAP_MS && !continued
        lastLineAt = now
        continued = false
        if (settle) clearTimeout(settle)
        if (pasting) return void lines.push(line)
        if (holding) {
          lines.push(line)
          return finish(lines.join("\n").replace(/\n+$/, ""))
        }
        if (line.endsWith("\\")) {
          continued = true
          lines.push(line.slice(0, -1))
          rl.setPrompt(outStyle.dim("… "))
          return void rl.prompt()
        }
        lines.push(line)
        if (together) pastedNow = true
        // Wait a moment: more lines arriving at once are a paste, to be sent with the next Enter.
        settle = setTimeout(() => {
          if (pastedNow) {
            pastedNow = false
            return waitForEnter()
          }
          finish(lines.join("\n").replace(/\n+$/, ""))
        }, PASTE_GAP_MS)
      })
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
      // Ctrl-C cancels only the turn: the chat goes on, so its stop has no time limit of its own.
      { ends: (signal) => signal !== "SIGINT" },
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
      let prompt = line.trim()
      if (prompt === "") continue
      history.unshift(line.split("\n")[0]!)
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
      // A custom slash command (.claude/commands, a plugin's commands/) goes to the session, which expands it.
      const word = /^\/([A-Za-z][\w.:-]*)(?:\s|$)/.exec(prompt)
      // A skill runs as `/name args` too, as in Claude Code.
      const custom = word && (session.commands.some((c) => c.name === word[1] || `${c.plugin}:${c.name}` === word[1]) || session.skills.includes(word[1]!))
      if (word && !custom) {
        const own = [...session.commands.map((c) => `/${c.name}`), ...session.skills.map((k) => `/${k}`)]
        io.err(`${errStyle.yellow(`Unknown command /${word[1]}.`)} Commands: ${[...CHAT_COMMANDS.map(([name]) => name), ...own].join(", ")} (//… sends a line starting with /).\n`)
        continue
      }
      if (prompt.startsWith("//")) prompt = prompt.slice(1)
      await runOne(prompt)
    }
  } finally {
    sessionSignals.dispose()
    closePrompt()
    await sessionRuntime.dispose()
  }
  if (quitSignal !== undefined) {
    io.err(`anvil: ${quitSignal}: session ${session.id} saved; every process anvil started was ended.\n`)
    return EXIT_SIGNALS[quitSignal]
  }
  if (tty) io.err(`${errStyle.dim(`Session ${session.id} saved; continue it with 'anvil chat --continue'.`)}\n`)
  return 0
}
