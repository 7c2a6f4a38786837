import { Deferred, Effect, ManagedRuntime } from "effect"
import { AgentSession, AgentSetupError, type AgentSessionOptions, type AgentSessionShape } from "../agent/agent-session.ts"
import { turnWithoutSteps } from "../agent/events.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makePrinter } from "../terminal/event-printer.ts"
import { visibleText } from "../terminal/visible-text.ts"
import { askInTerminal, askVerifyInTerminal } from "../terminal/permission-prompt.ts"
import { renderMarkdown } from "../terminal/markdown.ts"
import { makeSpinner } from "../terminal/spinner.ts"
import { colorEnabled, makeStyle } from "../terminal/style.ts"
import type { ServerSource } from "../mcp/server-sources.ts"
import { checkAllowRules, parseAgentArgs, sessionOptionsOf, type AgentArgs } from "./agent-args.ts"
import { makeClaudeStream, type ClaudeStream } from "./claude-stream.ts"
import { startFailureResult } from "./claude-result.ts"
import { EXIT, exitCodeOf } from "./exit-codes.ts"
import { inputTurns } from "./input-turns.ts"
import { answerControl } from "./run-control.ts"
import { initialMcpEvents, mcpHumanLine, mcpSystemEvent } from "./mcp-events.ts"
import type { McpEvent } from "../mcp/mcp-hub.ts"
import { UsageError } from "./args.ts"
import { pluginNotices } from "../plugins/plugin-host.ts"
import { frozenRunReport } from "./freeze-report.ts"
import { configWarningEvent, printConfigWarnings } from "./config-warnings.ts"
import { guardNodeStreams, stdinWaitMs, type CliIO } from "./output.ts"
import { approvals, terminalOf } from "./ask-policy.ts"
import { promptFromStdin, promptWithInput } from "./run-prompt.ts"
import { announceStart, sessionWarnings } from "./run-start.ts"
import { cancellingLine, outputReaderGone, watchSignals } from "./signals.ts"


/** A turn cut short before it could report (the result written when anvil must exit at once). */
const unfinishedTurn = turnWithoutSteps("cancelled", "cancelled")

/** What Claude's print mode (`anvil -p`) sets that `anvil run` has no flag for. */
export interface RunExtras {
  readonly configOverrides?: Record<string, unknown>
  readonly systemPrompt?: { readonly replace?: string; readonly append?: string }
  readonly mcpSources?: ReadonlyArray<ServerSource>
  /** Session options print mode sets directly (`--add-dir`, `--fallback-model`, `--max-budget-usd`). */
  readonly session?: Pick<AgentSessionOptions, "addDirs" | "fallbackModels" | "maxBudgetUsd" | "onNotice" | "persist" | "customAgents" | "claudeInstructions" | "thinking" | "fork" | "http">
  /** Only the extra MCP servers start (`--strict-mcp-config`). */
  readonly mcpStrict?: boolean
}

/** `anvil run`: one turn (or one per input message), scripted; returns the exit code (see RUN_HELP). */
export const runCommand = async (
  argv: ReadonlyArray<string>,
  io: CliIO,
  root: string | undefined,
  tools: ReadonlyArray<Tool>,
  strict = false,
  extra: RunExtras = {},
): Promise<number> => {
  const args: AgentArgs = parseAgentArgs(argv, "run")
  checkAllowRules(args.allow, tools.map((t) => t.name), "run")
  guardNodeStreams()
  const terminal = await terminalOf(io)
  const streamInput = args.inputFormat === "stream-json"
  const line = (obj: unknown) => io.out(`${JSON.stringify(obj)}\n`)
  let prompt = args.words.join(" ").trim()
  if (streamInput) {
    if (prompt !== "") throw new UsageError("anvil run: with --input-format stream-json the prompts come on standard input, not as an argument")
  } else if (prompt === "" || prompt === "-") {
    if (terminal.interactive && prompt === "") throw new UsageError("anvil run: give a prompt (an argument, or on standard input)")
    // `anvil run -` at a terminal reads what the person types up to Ctrl-D.
    const read = terminal.interactive ? (await io.readStdin()).trim() || { message: "no prompt: nothing was typed" } : await promptFromStdin(io, stdinWaitMs(io.env))
    if (typeof read !== "string") {
      if (args.format !== "text") line(startFailureResult(read.message, EXIT.usage, "usage", args.sessionId))
      io.err(`anvil run: ${read.message}\n`)
      return EXIT.usage
    }
    prompt = read
  } else if (io.readPipedStdin) {
    const waitMs = stdinWaitMs(io.env)
    const piped = await io.readPipedStdin(waitMs)
    if (piped === "silent") io.err(`anvil run: nothing arrived on standard input within ${waitMs / 1000} s; going on with the prompt alone (</dev/null skips the wait)\n`)
    else prompt = promptWithInput(prompt, piped)
  }

  const json = args.format !== "text"
  const stderr = process.stderr
  const errStyle = makeStyle(colorEnabled(stderr, io.env))
  const interactive = terminal.interactive && !json && !streamInput
  const spinner = makeSpinner(stderr)
  const ask = askInTerminal(terminal, errStyle, io.cwd)
  const onAsk = approvals(interactive, args.yes, spinner, ask)

  const printer = makePrinter({
    out: io.out,
    err: io.err,
    outStyle: makeStyle(false),
    errStyle,
    spinner,
    streamText: false,
    details: false,
    showRaw: args.showRaw,
    react: args.engine === "react",
  })

  // Events reach the Claude-shaped stream (stream-json), only the result (json), or the printer (text).
  let stream: ClaudeStream | undefined
  // MCP servers report status changes and progress: stream-json gets system messages (held until init is out), text runs a stderr line.
  const earlyMcp: Array<McpEvent> = []
  const onMcp = (event: McpEvent) => {
    if (args.format === "stream-json") {
      if (!stream) return void earlyMcp.push(event)
      const { type: _type, subtype, ...fields } = mcpSystemEvent(event)
      stream.system(String(subtype), fields)
    } else {
      const text = mcpHumanLine(event)
      if (text) io.err(text)
    }
  }
  const base = sessionOptionsOf(args, io, root, tools)
  const sessionRuntime = ManagedRuntime.make(
    AgentSession.layer({
      ...base,
      ...(extra.configOverrides ? { configOverrides: { ...base.configOverrides, ...extra.configOverrides } } : {}),
      ...(extra.systemPrompt ? { systemPrompt: extra.systemPrompt } : {}),
      ...extra.session,
      // A hook that failed is told on stderr and, in stream-json, as a system event the caller can read.
      plugins: {
        trustProject: args.trustPlugins,
        onProblem: (message) => {
          io.err(`anvil: ${message}\n`)
          if (args.format === "stream-json") line({ type: "system", subtype: "plugins", message })
        },
        // A plugin that freezes anvil ends the run (exit 8): the watchdog writes these lines, the message on stderr.
        ...(json ? { freezeReport: (id: string) => frozenRunReport(args.format === "stream-json", id) } : {}),
      },
      onAsk,
      mcp: { onEvent: onMcp, trustProject: args.trustMcp, ...(extra.mcpSources ? { extraSources: extra.mcpSources } : {}), ...(extra.mcpStrict ? { strict: true } : {}) },
      strict,
      onConfigWarnings: (warnings) => {
        printConfigWarnings(io, warnings)
        if (args.format === "stream-json") for (const w of warnings) line(configWarningEvent(w))
      },
      ...(interactive && io.terminal ? { terminal: io.terminal } : {}),
      ...(interactive ? { askVerify: askVerifyInTerminal(terminal, errStyle, spinner) } : {}),
      onSubagentEvent: (parent, event) => {
        if (stream) stream.event(event, parent)
        else if (!json) printer(event, parent)
      },
    }),
  )
  let session: AgentSessionShape
  try {
    session = await sessionRuntime.runPromise(AgentSession)
  } catch (e) {
    await sessionRuntime.dispose()
    if (e instanceof AgentSetupError) {
      const code = e.strictConfig ? EXIT.usage : EXIT.config
      if (json) line(startFailureResult(e.message, code, "config", args.sessionId))
      io.err(`anvil run: ${e.message}\n`)
      return code
    }
    throw e
  }

  const claude = makeClaudeStream({
    sessionId: session.id,
    model: session.model.id,
    contextWindow: session.model.contextWindow,
    write: (message) => {
      if (args.format === "stream-json" || message.type === "result") line(message)
    },
    cost: session.cost,
  })
  const notices = pluginNotices(session.plugins)
  for (const notice of notices) io.err(`anvil: ${notice}\n`)
  if (args.format === "stream-json") {
    // As Claude Code's, the init message lists the MCP servers' tools: the first request waits for them anyway.
    await session.mcpReady
    stream = claude
    announceStart(claude, session, io.cwd, args.yes, notices)
  }
  const early = earlyMcp.splice(0)
  const reported = new Set(early.flatMap((e) => (e.type === "status" ? [e.server] : [])))
  for (const event of [...early, ...initialMcpEvents(session.mcp, reported)]) onMcp(event)
  if (args.format !== "stream-json") for (const w of sessionWarnings(session)) io.err(`anvil: warning: ${w.message}\n`)

  // SIGINT, SIGTERM, SIGHUP cancel the turn in flight (its processes are ended) and end the run; the result says "interrupted".
  const cancel = Effect.runSync(Deferred.make<void>())
  const interruptedLine = (signal: string) => `anvil run: interrupted by ${signal}; the turn was cancelled and every process it started was ended.\n`
  // A signal, or standard output's reader going away (`| head -1`: SIGPIPE), also stops reading further input.
  const stopInput = new AbortController()
  const signals = watchSignals(
    (signal) => {
      io.err(cancellingLine(signal))
      Effect.runSync(Deferred.succeed(cancel, undefined))
      stopInput.abort()
    },
    // The turn did not finish in time after a second signal: the last words before anvil exits.
    (signal) => {
      if (json) claude.result(unfinishedTurn, signal)
      else io.err(interruptedLine(signal))
    },
  )

  // An `interrupt` control request (as Claude Code's stream-json input takes one) cancels the turn in flight alone.
  let interruptTurn: (() => void) | undefined
  const turn = async (text: string): Promise<number> => {
    const interrupted = Effect.runSync(Deferred.make<void>())
    interruptTurn = () => Effect.runSync(Deferred.succeed(interrupted, undefined))
    const result = await session.runTurn(text, {
      cancelled: Effect.raceFirst(Deferred.await(cancel), Deferred.await(interrupted)),
      emit: (event) => {
        // Errors go to stderr in every format (stream-json's result carries them too); retries show on stderr unless streamed.
        if (event.type === "error") {
          spinner.stop()
          io.err(`anvil run: ${event.message}\n`)
        } else if (event.type === "hook_stopped" && !stream) {
          // A hook's stop is for the person: on stderr (stream-json tells it as a `hook_stopped` system message).
          spinner.stop()
          io.err(`anvil run: plugin '${event.plugin}' ended the turn: ${event.reason}\n`)
        } else if (stream) stream.event(event)
        // json prints only the result, whose stop_reason follows the last reply.
        else if (json && event.type === "assistant") claude.event(event)
        else if (!json || event.type === "retry") printer(event)
      },
    })
    interruptTurn = undefined
    const signal = signals.signal
    if (json) claude.result(result, signal)
    else if (result.answer !== "") {
      // Markdown rendered for a terminal, where it is shown, never acted on (visible-text.ts); as written when piped.
      const shown = process.stdout.isTTY === true ? visibleText(result.answer) : result.answer
      const answer = renderMarkdown(shown, makeStyle(colorEnabled(process.stdout, io.env)))
      io.out(answer.endsWith("\n") ? answer : `${answer}\n`)
    }
    if (signal !== undefined && !json) io.err(interruptedLine(signal))
    return exitCodeOf(result, signal)
  }

  const stopWatchingOutput = io.onOutputGone?.(outputReaderGone)
  let code: number = EXIT.ok
  try {
    if (!streamInput) code = await turn(prompt)
    else {
      const source = io.stdinStream?.() ?? new Response(await io.readStdin()).body!
      const last = await inputTurns(source, stopInput, {
        turn: (text) => (signals.signal === undefined ? turn(text) : Promise.resolve(undefined)),
        skipped: (why) => io.err(`anvil run: ${why}; skipped\n`),
        control: args.format === "stream-json" ? (message) => answerControl(message, line, () => interruptTurn?.()) : undefined,
      })
      if (last !== undefined) code = last
      // A signal while waiting for the next message cut the input short: the run ends with the signal's status.
      if (signals.exitCode !== undefined) code = signals.exitCode
    }
  } finally {
    stopWatchingOutput?.()
    signals.dispose()
    await sessionRuntime.dispose()
  }
  return code
}
