import { resolve } from "node:path"
import { EXIT } from "../cli/exit-codes.ts"
import { inputMessages } from "../cli/input-stream.ts"
import { guardNodeStreams, type CliIO } from "../cli/output.ts"
import { cancellingLine, outputReaderGone, watchSignals } from "../cli/signals.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { makeControlChannel } from "./control-channel.ts"
import { handleControl } from "./control-requests.ts"
import { cancelTurn, makeHostState } from "./host-state.ts"
import { makeHostTurns } from "./host-turns.ts"
import { makePermissionBridge } from "./permission-bridge.ts"
import { openDebugLog, loggedIO, type DebugLog } from "./debug-log.ts"
import { loggedModelHttp } from "./debug-http.ts"
import type { ModelHttpShape } from "../llm/http.ts"
import { parsePrintFlags, type PrintFlags } from "./print-flags.ts"
import { printRun } from "./print-run.ts"
import { readPluginDirs, writePluginDirs } from "../plugins/plugin-dirs-env.ts"
import { closeSession, openSession } from "./session-lifecycle.ts"

/**
 * The Claude Agent SDK host: started with Claude Code's print-mode flags and
 * no subcommand (as the SDK starts `pathToClaudeCodeExecutable`), anvil speaks
 * the SDK's line protocol on stdin/stdout. User messages are turns of one
 * agent session (host-turns.ts, session-lifecycle.ts); control requests are
 * answered (control-requests.ts); an "ask" goes to the host as `can_use_tool`
 * (permission-bridge.ts); the host's hooks are called back with
 * `hook_callback` (sdk-hooks.ts). The messages out are `anvil run`'s
 * Claude-shaped stream with tool names and inputs translated to Claude's at
 * this edge (host-messages.ts). Without stream-json input it is one
 * `anvil run` (print-run.ts).
 */

type Json = Record<string, unknown>

export const sdkHostCommand = async (argv: ReadonlyArray<string>, given: CliIO, root: string | undefined, tools: ReadonlyArray<Tool>): Promise<number> => {
  const flags = parsePrintFlags(argv)
  if (flags.errors.length > 0) {
    given.err(`${flags.errors.map((e) => `anvil: ${e}\n`).join("")}Run 'anvil --help' for usage.\n`)
    return EXIT.usage
  }
  const debug = openDebugLog(flags.debug, given, argv)
  if (debug !== undefined && "error" in debug) {
    given.err(`anvil: ${debug.error}\nRun 'anvil --help' for usage.\n`)
    return EXIT.usage
  }
  const logged = debug !== undefined ? loggedIO(given, debug) : given
  const userDirs = readPluginDirs(given.env.ANVIL_PLUGIN_DIRS)
  if (flags.pluginDirs.length > 0 && userDirs.problem !== undefined) logged.err(`anvil: ${userDirs.problem}\n`)
  // The program's plugins (`--plugin-dir`) are found where plugin discovery looks for a run's extra folders.
  const io: CliIO =
    flags.pluginDirs.length === 0
      ? logged
      : {
          ...logged,
          env: {
            ...given.env,
            ANVIL_PLUGIN_DIRS: writePluginDirs([...userDirs.dirs, ...flags.pluginDirs.map((d) => resolve(given.cwd, d))]),
          },
        }
  try {
    // The model's requests join the log (debug-http.ts).
    const http = debug !== undefined ? loggedModelHttp(debug) : undefined
    if (flags.inputFormat !== "stream-json" || flags.outputFormat !== "stream-json") return await printRun(flags, io, root, tools, http)
    return await hostSession(flags, io, root, tools, debug, http)
  } finally {
    debug?.close()
  }
}

const hostSession = async (flags: PrintFlags, io: CliIO, root: string | undefined, tools: ReadonlyArray<Tool>, debug: DebugLog | undefined, http: ModelHttpShape | undefined): Promise<number> => {
  guardNodeStreams()
  const line = (message: Json) => io.out(`${JSON.stringify(message)}\n`)
  const channel = makeControlChannel(line)
  const state = makeHostState({ flags, io, root, tools, channel, line, ...(http ? { http } : {}) })
  const bridge = makePermissionBridge(state)

  // A signal, or standard output's reader going away (the program ended: SIGPIPE), ends the session: the running
  // turn is cancelled with its processes, queued ones do not start, and no further input is read.
  const stopInput = new AbortController()
  const signals = watchSignals((signal) => {
    io.err(cancellingLine(signal))
    cancelTurn(state)
    stopInput.abort()
  })
  const stopWatchingOutput = io.onOutputGone?.(outputReaderGone)
  const { turn, ensureSession } = makeHostTurns(state, (stopTurn) => openSession(state, bridge, stopTurn), () => signals.signal)
  state.ensureSession = ensureSession

  // Turns run one after another while control messages keep being read (an interrupt arrives during a turn).
  let queue: Promise<void> = Promise.resolve()
  try {
    const source = io.stdinStream?.() ?? new Response(await io.readStdin()).body!
    for await (const input of inputMessages(source, stopInput.signal)) {
      debug?.write("in", input.kind === "user" ? `user message: ${input.text}` : input.kind === "invalid" ? `line ${input.line}: ${input.error}` : JSON.stringify(input.message))
      if (signals.signal !== undefined) break
      if (input.kind === "user") queue = queue.then(() => turn(input.text))
      else if (input.kind === "invalid") io.err(`anvil: input line ${input.line}: ${input.error}; skipped\n`)
      else if (input.type === "control_request") void handleControl(state, input.message)
      else if (input.type === "control_response") channel.receive(input.message)
      else if (input.type === "control_cancel_request" && typeof input.message.request_id === "string") channel.cancel(input.message.request_id)
      else io.err(`anvil: input messages of type '${input.type}' are not understood; skipped\n`)
    }
    await queue
  } finally {
    channel.close("the host closed its input")
    await closeSession(state)
    stopWatchingOutput?.()
    signals.dispose()
  }
  return signals.exitCode ?? state.exitCode
}
