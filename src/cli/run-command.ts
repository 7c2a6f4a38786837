import { Deferred, Effect } from "effect"
import { AgentSetupError, openAgentSession, type AgentSession } from "../agent/agent-session.ts"
import type { AgentEvent, TurnResult } from "../agent/events.ts"
import { showAllowRule } from "../permission/rules.ts"
import { sandboxSummary } from "../sandbox/summary.ts"
import { rulesForAnswer, type AskAnswer, type PermissionRequest } from "../permission/permissions.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makePrinter } from "../terminal/event-printer.ts"
import { askInTerminal } from "../terminal/permission-prompt.ts"
import { makeSpinner } from "../terminal/spinner.ts"
import { colorEnabled, makeStyle } from "../terminal/style.ts"
import { UserTerminal, type UserTerminalShape } from "../terminal/user-terminal.ts"
import { parseAgentArgs, sessionOptionsOf, type AgentArgs } from "./agent-args.ts"
import { initialMcpEvents, mcpHumanLine, mcpSystemEvent } from "./mcp-events.ts"
import type { McpEvent } from "../mcp/mcp-hub.ts"
import { UsageError } from "./args.ts"
import { pluginNotices } from "../plugins/plugin-host.ts"
import { guardNodeStreams, type CliIO } from "./output.ts"
import { watchSignals, type ExitSignal } from "./signals.ts"

export const RUN_HELP = `Usage: anvil run [options] "<prompt>"      (or the prompt on standard input)

Runs one agent turn and exits when it ends.

Options:
  --model, -m PROVIDER/MODEL  the model (e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/qwen2.5-coder:7b)
  --format, -f FORMAT         text (final answer on stdout), json (one result object),
                              stream-json (one JSON event a line: init, assistant, tool_use, tool_result, error, result)
  --yes, -y                   approve every call that would ask (deny rules still deny)
  --trust-plugins             load the project's untrusted plugins for this run (see 'anvil plugins')
  --trust-mcp                 start the project's untrusted MCP servers for this run (see 'anvil mcp')
  --allow RULE                approve matching calls: TOOL or TOOL:PATTERN, e.g. --allow "bash:npm test" --allow edit:src/**
  --continue, -c              continue the most recent session
  --session ID                continue the session ID (see 'anvil sessions')
  --max-steps N               stop after N model requests (default 50, anvil.json max_steps)
  --profile NAME              code (default), plan, explore, test
  --engine native|react       native tool calls (default) or the ReAct text protocol
  --verify CMD, --no-verify   the auto-verification command (default: anvil.json verify)
  --sandbox MODE              the command sandbox: workspace-write (default), read-only, off, or
                              require (workspace-write, and an error where it cannot run)
  --show-raw                  print the raw model responses to stderr

Without a terminal, calls that need approval are denied (the model is told PERMISSION_DENIED)
unless --yes or a matching --allow is given.

Exit codes: 0 the turn completed, 1 it failed (model error, step limit, repeated failing call),
2 usage or configuration error, 130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP (the turn is
cancelled, every process it started is ended, and the result says reason "interrupted").
`

/** The person at the terminal, from the CLI's terminal layer. */
export const terminalOf = async (io: CliIO): Promise<UserTerminalShape> =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* UserTerminal
    }).pipe(Effect.provide(io.terminal ?? UserTerminal.none)),
  )

/** How "ask" is answered without a person: --yes approves; otherwise deny, telling the model how the user could approve. */
export const scriptedAsk = (yes: boolean) => (request: PermissionRequest): Effect.Effect<AskAnswer> => {
  const rule = showAllowRule(rulesForAnswer(request.tool, request.subjects)[0]!)
  const what = request.subjects ? ` (${request.subjects.values.join(", ")})` : ""
  if (request.unconfined) {
    return Effect.succeed({
      deny:
        `The '${request.tool.name}' call${what} asks to run outside the command sandbox, which only a person may approve, and anvil is running without a terminal to ask (--yes does not cover it). ` +
        `It was not run. Run it sandboxed (leave out sandbox: false), or the user can allow this exact command with --allow ${JSON.stringify(rule)}.`,
    })
  }
  if (yes) return Effect.succeed("once")
  return Effect.succeed({
    deny:
      `The '${request.tool.name}' call${what} needs approval and anvil is running without a terminal to ask. ` +
      `It was not run. The user can approve such calls with --yes or --allow ${JSON.stringify(rule)}; do not retry it unchanged.`,
  })
}

/**
 * How "ask" calls are answered: at the terminal (the spinner stopped first) when
 * there is one to ask and --yes was not given, otherwise by `scriptedAsk`.
 */
export const approvals = (
  canPrompt: boolean,
  yes: boolean,
  spinner: { readonly stop: () => void },
  prompt: (request: PermissionRequest) => Effect.Effect<AskAnswer>,
) => {
  const atTerminal = (r: PermissionRequest) => Effect.andThen(Effect.sync(spinner.stop), prompt(r))
  if (!canPrompt) return scriptedAsk(yes)
  // --yes never covers leaving the sandbox: that is still put to the person at the terminal.
  return yes ? (r: PermissionRequest) => (r.unconfined ? atTerminal(r) : scriptedAsk(true)(r)) : atTerminal
}

/** The result object of --format json and the last line of stream-json. */
export const resultObject = (session: AgentSession, result: TurnResult) => ({
  type: "result",
  is_error: result.status !== "success",
  status: result.status,
  reason: result.reason,
  session_id: session.id,
  model: session.model.id,
  answer: result.answer,
  usage: { input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens },
  stats: result.stats,
  ...(result.error !== undefined ? { error: result.error } : {}),
})

/** The result fields of a run ended by a signal (the whole object when the turn could not finish in time). */
const interruptedResult = (session: AgentSession, signal: ExitSignal) => ({
  type: "result",
  is_error: true,
  status: "cancelled",
  reason: "interrupted",
  signal,
  session_id: session.id,
  error: `interrupted by ${signal}: the turn was cancelled and every process it started was ended`,
})

const interruptedLine = (signal: ExitSignal) =>
  `anvil run: interrupted by ${signal}; the turn was cancelled and every process it started was ended.\n`

/** An agent event as a stream-json line (undefined: not part of the stream). */
export const streamJsonEvent = (event: AgentEvent, parent?: string): Record<string, unknown> | undefined => {
  const nested = parent ? { parent_tool_use_id: parent } : {}
  switch (event.type) {
    case "assistant":
      if (parent) return undefined
      return {
        type: "assistant",
        text: event.text,
        tool_calls: event.tool_calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
        usage: { input_tokens: event.usage.inputTokens, output_tokens: event.usage.outputTokens },
        ...(event.react ? { react: event.react } : {}),
      }
    case "tool_use":
      return { type: "tool_use", id: event.id, name: event.name, input: event.input, ...nested }
    case "tool_result":
      return { type: "tool_result", id: event.id, name: event.name, envelope: event.envelope, execution_meta: event.execution_meta, ...nested }
    case "error":
      return parent ? undefined : { type: "error", message: event.message }
    case "compaction":
      return { type: "compaction", replaced: event.replaced, tokens_before: event.tokens_before, tokens_after: event.tokens_after }
    case "verify":
      return { type: "verify", command: event.command, passed: event.passed, exit_code: event.exit_code, output: event.output }
    default:
      return undefined
  }
}

/** `anvil run`: one turn, scripted; returns the exit code. */
export const runCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, tools: ReadonlyArray<Tool>): Promise<number> => {
  const args: AgentArgs = parseAgentArgs(argv, "run")
  guardNodeStreams()
  const terminal = await terminalOf(io)
  let prompt = args.words.join(" ").trim()
  if (prompt === "" || prompt === "-") {
    if (terminal.interactive && prompt === "") throw new UsageError("anvil run: give a prompt (an argument, or on standard input)")
    prompt = (await io.readStdin()).trim()
  }
  if (prompt === "") throw new UsageError("anvil run: the prompt is empty")

  const json = args.format !== "text"
  const line = (obj: unknown) => io.out(`${JSON.stringify(obj)}\n`)
  const stderr = process.stderr
  const errStyle = makeStyle(colorEnabled(stderr, io.env))
  const interactive = terminal.interactive && !json
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

  // MCP servers report status changes and progress: stream-json gets system events, text runs a stderr line.
  const onMcp = (event: McpEvent) => {
    if (args.format === "stream-json") line(mcpSystemEvent(event))
    else {
      const text = mcpHumanLine(event)
      if (text) io.err(text)
    }
  }
  let session: AgentSession
  try {
    session = await openAgentSession({
      ...sessionOptionsOf(args, io, root, tools),
      // A hook that failed is told on stderr and, in stream-json, as a system event the caller can read.
      plugins: {
        trustProject: args.trustPlugins,
        onProblem: (message) => {
          io.err(`anvil: ${message}\n`)
          if (args.format === "stream-json") line({ type: "system", subtype: "plugins", message })
        },
      },
      onAsk,
      mcp: { onEvent: onMcp, trustProject: args.trustMcp },
      ...(interactive && io.terminal ? { terminal: io.terminal } : {}),
      onSubagentEvent: (parent, event) => {
        if (args.format === "stream-json") {
          const obj = streamJsonEvent(event, parent)
          if (obj) line(obj)
        } else if (!json) printer(event, parent)
      },
    })
  } catch (e) {
    if (e instanceof AgentSetupError) {
      if (json) line({ type: "result", status: "error", reason: "setup", error: e.message })
      io.err(`anvil run: ${e.message}\n`)
      return 2
    }
    throw e
  }

  const notices = pluginNotices(session.plugins)
  for (const notice of notices) io.err(`anvil: ${notice}\n`)
  if (args.format === "stream-json") {
    for (const notice of notices) line({ type: "system", subtype: "plugins", message: notice })
    line({
      type: "init",
      session_id: session.id,
      resumed: session.resumed,
      model: session.model.id,
      profile: session.profile.name,
      engine: session.engine,
      cwd: io.cwd,
      tools: session.tools.map((t) => t.name),
      plugins: session.plugins.reports.map((r) => ({ name: r.name, source: r.source, status: r.status })),
      mcp_servers: session.mcp.views().map((v) => ({ name: v.name, status: v.status === "starting" ? "pending" : v.status })),
      sandbox: sandboxSummary(session.sandbox),
    })
    if (session.sandbox.warning) line({ type: "system", subtype: "warning", source: "sandbox", message: session.sandbox.warning })
  }
  for (const event of initialMcpEvents(session.mcp)) onMcp(event)
  if (session.sandbox.warning && args.format !== "stream-json") io.err(`anvil: warning: ${session.sandbox.warning}\n`)

  // SIGINT, SIGTERM, SIGHUP cancel the turn; its processes are ended and the result says "interrupted".
  const cancel = Effect.runSync(Deferred.make<void>())
  const signals = watchSignals(
    (signal) => {
      io.err(`\nanvil: ${signal}: cancelling (${signal === "SIGINT" ? "Ctrl-C" : "a signal"} again to stop at once)\n`)
      Effect.runSync(Deferred.succeed(cancel, undefined))
    },
    (signal) => {
      if (json) line(interruptedResult(session, signal))
      else io.err(interruptedLine(signal))
    },
  )
  let result: TurnResult
  try {
    result = await session.runTurn(prompt, {
      cancelled: Deferred.await(cancel),
      emit: (event) => {
        if (args.format === "stream-json") {
          const obj = streamJsonEvent(event)
          if (obj) line(obj)
        } else if (!json) printer(event)
        else if (event.type === "error") io.err(`anvil run: ${event.message}\n`)
      },
    })
  } finally {
    signals.dispose()
    await session.dispose()
  }

  if (signals.signal !== undefined) {
    if (json) line({ ...resultObject(session, result), ...interruptedResult(session, signals.signal) })
    else io.err(interruptedLine(signals.signal))
    return signals.exitCode!
  }
  if (args.format === "text") {
    if (result.answer !== "") io.out(result.answer.endsWith("\n") ? result.answer : `${result.answer}\n`)
  } else line(resultObject(session, result))
  return result.status === "success" ? 0 : 1
}
