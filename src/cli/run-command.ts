import { Deferred, Effect, ManagedRuntime } from "effect"
import { AgentSession, AgentSetupError, type AgentSessionOptions, type AgentSessionShape } from "../agent/agent-session.ts"
import { turnWithoutSteps } from "../agent/events.ts"
import { describeSubjects } from "../permission/subjects.ts"
import { showAllowRule } from "../permission/allow-rule.ts"
import { sandboxSummary } from "../sandbox/summary.ts"
import { rulesForAnswer, type AskAnswer, type PermissionRequest } from "../permission/permissions.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makePrinter } from "../terminal/event-printer.ts"
import { askInTerminal, askVerifyInTerminal } from "../terminal/permission-prompt.ts"
import { renderMarkdown } from "../terminal/markdown.ts"
import { makeSpinner } from "../terminal/spinner.ts"
import { colorEnabled, makeStyle } from "../terminal/style.ts"
import { UserTerminal, type UserTerminalShape } from "../terminal/user-terminal.ts"
import { VERSION } from "../version.ts"
import type { ServerSource } from "../mcp/server-sources.ts"
import { checkAllowRules, parseAgentArgs, sessionOptionsOf, type AgentArgs } from "./agent-args.ts"
import { makeClaudeStream, startFailureResult, type ClaudeStream } from "./claude-stream.ts"
import { EXIT, exitCodeOf } from "./exit-codes.ts"
import { inputMessages } from "./input-stream.ts"
import { answerControl } from "./run-control.ts"
import { initialMcpEvents, mcpHumanLine, mcpSystemEvent } from "./mcp-events.ts"
import type { McpEvent } from "../mcp/mcp-hub.ts"
import { UsageError } from "./args.ts"
import { pluginNotices } from "../plugins/plugin-host.ts"
import { frozenRunReport } from "./freeze-report.ts"
import { configWarningEvent, printConfigWarnings } from "./config-warnings.ts"
import { guardNodeStreams, stdinWaitMs, type CliIO } from "./output.ts"
import { cancellingLine, outputReaderGone, watchSignals } from "./signals.ts"

export const RUN_HELP = `Usage: anvil run [options] "<prompt>"      (or the prompt on standard input)

Runs one agent turn and exits when it ends. Piped input and a prompt together:
the prompt comes first, the piped text is attached after it (git diff | anvil run "review this").

Options:
  --model, -m PROVIDER/MODEL  the model (e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, ollama/qwen2.5-coder:7b)
  --format, -f FORMAT         text (final answer on stdout), json (one result object, as claude -p --output-format json),
                              stream-json (one JSON message a line, as claude -p --output-format stream-json)
  --input-format stream-json  read user messages as JSON lines on stdin, one turn each (needs --format stream-json)
  --yes, -y                   approve every call that would ask (deny rules still deny)
  --trust-plugins             load the project's untrusted plugins for this run (see 'anvil plugins')
  --trust-mcp                 start the project's untrusted MCP servers for this run (see 'anvil mcp')
  --allow RULE                approve matching calls: TOOL or TOOL:PATTERN, e.g. --allow "bash:npm test" --allow edit:src/**
  --continue, -c              continue the last session that has an answer (its model and profile too)
  --session ID                continue the session ID (see 'anvil sessions')
  --max-steps N               stop after N model requests (default 50, anvil.json max_steps)
  --timeout SECONDS           model deadlines: response headers and silences in the stream (default 120 s / 180 s,
                              anvil.json model_timeout.request_sec / idle_sec); 90, 90s, 5m
  --profile NAME              code (default), plan, explore, test
  --engine native|react       native tool calls (default) or the ReAct text protocol
  --verify CMD, --no-verify   the auto-verification command (default: anvil.json verify)
  --sandbox MODE              the command sandbox: workspace-write (default), read-only, off, or
                              require (workspace-write, and an error where it cannot run)
  --show-raw                  print the raw model responses to stderr

Without a terminal, calls that need approval are denied (the model is told PERMISSION_DENIED)
unless --yes or a matching --allow is given.

Exit codes:
  0  the turn ended with an answer and nothing failed
  1  the model or its server failed (HTTP error, timeout, no answer)
  2  usage error (the command line)
  3  configuration error (no model, broken anvil.json, no such session or --root folder)
  4  a tool call was denied and that work was not done
  5  the verify command still failed at the end
  6  the step limit was reached
  7  the same failing call was repeated until the turn was stopped
  130 / 143 / 129  interrupted by SIGINT (Ctrl-C) / SIGTERM / SIGHUP
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
  const what = describeSubjects(request.subjects)
  if (request.unconfined) {
    return Effect.succeed({
      deny:
        `The '${request.tool.name}' call${what} asks to run outside the command sandbox, which only a person may approve, and anvil is running without a terminal to ask (--yes does not cover it). ` +
        `It was not run. Run it sandboxed (leave out sandbox: false), or the user can allow this exact command with --allow ${JSON.stringify(rule)}.`,
      unattended: true,
    })
  }
  if (yes) return Effect.succeed("once")
  const asker =
    request.hook?.decision === "ask"
      ? ` (a hook asks for it: ${request.hook.reason ?? "no reason given"})`
      : request.readAsked !== undefined
        ? ` (the rule ${request.readAsked} asks before any file is read, and the command could read any of them: the sandbox cannot hide them all)`
        : ""
  return Effect.succeed({
    deny:
      `The '${request.tool.name}' call${what} needs approval${asker} and anvil is running without a terminal to ask. ` +
      `It was not run. The user can approve such calls with --yes or --allow ${JSON.stringify(rule)}; do not retry it unchanged.`,
    unattended: true,
  })
}

/**
 * Who answers an "ask" — the one place run and chat decide it: the person at
 * the terminal (the spinner stopped first) when there is one and --yes was not
 * given, otherwise `scriptedAsk` (--yes approves, anything else is denied with
 * how to approve). Rules (`permission`, --allow, "always") are applied before
 * an ask is raised, and plugins' `permission.ask` hooks get the first word
 * (agent-session). A host that answers for a program instead (Claude's
 * `can_use_tool` control request over stream-json) takes the place of
 * `scriptedAsk` here, so every answer still flows through one function.
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

/** A turn cut short before it could report (the result written when anvil must exit at once). */
const unfinishedTurn = turnWithoutSteps("cancelled", "cancelled")

/**
 * The prompt read from standard input when no argument gives one: the text, or why there is none (empty or
 * closed input, or a pipe silent for `waitMs`), as the message of a usage error.
 */
export const promptFromStdin = async (io: CliIO, waitMs: number): Promise<string | { readonly message: string }> => {
  const how = `Give the prompt as an argument (anvil run "…") or pipe it in (echo "…" | anvil run).`
  const piped = io.readPipedStdin ? await io.readPipedStdin(waitMs) : await io.readStdin()
  if (piped === "silent") {
    return {
      message:
        `no prompt: nothing arrived on standard input within ${waitMs / 1000} s (its writer left it open and silent). ` +
        `${how} For a producer slow to start, set ANVIL_STDIN_WAIT=SECONDS.`,
    }
  }
  const text = piped?.trim() ?? ""
  const what = piped === undefined ? "standard input is empty or closed" : "standard input was empty"
  return text === "" ? { message: `no prompt: ${what}. ${how}` } : text
}

/** The prompt argument with piped standard input attached after it (or the piped input alone). */
export const promptWithInput = (prompt: string, piped: string | undefined): string => {
  const input = piped?.replace(/\s+$/, "") ?? ""
  if (input.trim() === "") return prompt
  if (prompt === "") return input.trim()
  return `${prompt}\n\n<stdin>\n${input}\n</stdin>`
}

/** What Claude's print mode (`anvil -p`) sets that `anvil run` has no flag for. */
export interface RunExtras {
  readonly configOverrides?: Record<string, unknown>
  readonly systemPrompt?: { readonly replace?: string; readonly append?: string }
  readonly mcpSources?: ReadonlyArray<ServerSource>
  /** Session options print mode sets directly (`--add-dir`, `--fallback-model`, `--max-budget-usd`). */
  readonly session?: Pick<AgentSessionOptions, "addDirs" | "fallbackModels" | "maxBudgetUsd" | "onNotice">
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
      mcp: { onEvent: onMcp, trustProject: args.trustMcp, ...(extra.mcpSources ? { extraSources: extra.mcpSources } : {}) },
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
    claude.init({
      cwd: io.cwd,
      model: session.model.id,
      tools: session.tools.map((t) => t.name),
      permissionMode: args.yes ? "bypassPermissions" : "default",
      version: VERSION,
      profile: session.profile.name,
      engine: session.engine,
      resumed: session.resumed,
      skills: session.skills,
      slash_commands: session.commands.map((c) => c.name),
      ...(session.agents.length > 0 ? { agents: [...new Set(["explore", ...session.agents.map((a) => a.name)])] } : {}),
      plugins: session.plugins.reports.map((r) => ({ name: r.name, source: r.source, status: r.status })),
      mcp_servers: session.mcp.views().map((v) => ({ name: v.name, status: v.status === "starting" ? "pending" : v.status })),
      sandbox: sandboxSummary(session.sandbox),
    })
    for (const notice of notices) claude.system("plugins", { message: notice })
    if (session.sandbox.warning) claude.system("warning", { source: "sandbox", message: session.sandbox.warning })
    if (session.sandbox.settings.projectIgnored) claude.system("warning", { source: "sandbox", message: session.sandbox.settings.projectIgnored })
    if (session.settingsIgnored) claude.system("warning", { source: "config", message: session.settingsIgnored })
    if (session.verifySkipped) claude.system("warning", { source: "config", message: session.verifySkipped })
  }
  const early = earlyMcp.splice(0)
  const reported = new Set(early.flatMap((e) => (e.type === "status" ? [e.server] : [])))
  for (const event of [...early, ...initialMcpEvents(session.mcp, reported)]) onMcp(event)
  if (session.sandbox.warning && args.format !== "stream-json") io.err(`anvil: warning: ${session.sandbox.warning}\n`)
  if (session.sandbox.settings.projectIgnored && args.format !== "stream-json") io.err(`anvil: warning: ${session.sandbox.settings.projectIgnored}\n`)
  if (session.settingsIgnored && args.format !== "stream-json") io.err(`anvil: warning: ${session.settingsIgnored}\n`)
  if (session.verifySkipped && args.format !== "stream-json") io.err(`anvil: warning: ${session.verifySkipped}\n`)

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
      // Markdown rendered for a terminal, the text as written when piped.
      const answer = renderMarkdown(result.answer, makeStyle(colorEnabled(process.stdout, io.env)))
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
      // Turns run one after another while the input keeps being read, so that an interrupt reaches the running one.
      let turns: Promise<void> = Promise.resolve()
      // A turn that fails on a bug ends the run at once (reported by the CLI), not when the input ends.
      let failure: { readonly error: unknown } | undefined
      for await (const message of inputMessages(source, stopInput.signal)) {
        if (message.kind === "user") {
          turns = turns
            .then(async () => {
              if (signals.signal === undefined && failure === undefined) code = await turn(message.text)
            })
            .catch((error: unknown) => {
              failure = { error }
              stopInput.abort()
            })
        } else if (message.kind === "invalid") {
          io.err(`anvil run: input line ${message.line}: ${message.error}; skipped\n`)
        } else if (message.type === "control_request" && args.format === "stream-json") {
          answerControl(message.message, line, () => interruptTurn?.())
        } else {
          io.err(`anvil run: input messages of type '${message.type}' are not understood; skipped\n`)
        }
      }
      await turns
      if (failure !== undefined) throw failure.error
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
