import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { BASH_DEFAULTS, READ_DEFAULTS } from "../config/sections/tools.ts"
import { OutputSettings } from "../output/output-settings.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import { quoteArg, runShell, SHELL_SERVICES, type ShellRun, type StreamReport } from "../shell/run-shell.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import description from "./bash.md" with { type: "text" }
import { shellContext, withShellErrors } from "./shell-errors.ts"
import { withWorkspaceErrors } from "./workspace-errors.ts"
import { unseenHints, unseenLines, type ReadLimits } from "./bash-retrieval.ts"
import { counted } from "../protocol/plural.ts"
import { BackgroundShells, runForeground, startBackground } from "../shell/background-shells.ts"
import { LiveOutput } from "../shell/live-output.ts"
import { movedEnd, movedResult, startedResult } from "./bash-background.ts"

/** Lowest accepted timeout (also what `timeout_ms` may be set to in tests). */
const MIN_TIMEOUT_MS = 100
/** Room left in the framework's budget for the header, status lines, paths and hints. */
const FRAME_BYTES = 2048
const FRAME_LINES = 40

const Parameters = Schema.Struct({
  command: Schema.optionalKey(
    Schema.String.annotate({ description: "Run with `/bin/sh -lc`." }),
  ),
  args: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({
      description: 'argv run without a shell (instead of command).',
    }),
  ),
  workdir: Schema.optionalKey(
    Schema.String.annotate({ description: "Folder to run in (prefer to `cd`)." }),
  ),
  timeout_ms: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(MIN_TIMEOUT_MS)).annotate({
      description: "Default 120000, max 600000.",
    }),
  ),
  max_output_chars: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(200)).annotate({
      description: "Characters shown (default 30000); the middle of the rest is saved.",
    }),
  ),
  description: Schema.optionalKey(
    Schema.String.annotate({ description: "A few words for the user's approval." }),
  ),
  sandbox: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "false: outside the sandbox (always asks the user), only when it refused something needed.",
    }),
  ),
  run_in_background: Schema.optionalKey(
    Schema.Boolean.annotate({
      description: "Answer at once with an id; bash_output reads it, bash_stop ends it. Timeout 30 min.",
    }),
  ),
})
type Parameters = typeof Parameters.Type

const pyBool = (b: boolean) => (b ? "True" : "False")

/** The header's short form of a command: its first line, at most 120 characters. */
const headline = (s: string) => {
  const first = s.trim().split("\n")[0] ?? ""
  const cut = first.length > 120 ? `${first.slice(0, 119)}…` : first
  return first === s.trim() ? cut : `${cut} …`
}

/** bash: a shell command line (or an argv) run in the project; the running is the shell domain's (`shell/run-shell.ts`). */
export const bashTool = defineTool({
  name: "bash",
  requires: [...SHELL_SERVICES, BackgroundShells],
  title: "Bash",
  description,
  aliases: ["shell", "run_command", "execute_command"],
  parameterAliases: { cmd: "command", argv: "args", cwd: "workdir", working_dir: "workdir", timeout: "timeout_ms" },
  permission: "ask",
  sandboxedCall: (params: Parameters) => params.sandbox !== false,
  parameters: Parameters,
  run: (params: Parameters, call) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const config = yield* Config
      const settings = yield* OutputSettings
      const setting = (key: keyof typeof BASH_DEFAULTS) => config.count(`tools.bash.${key}`, BASH_DEFAULTS[key] as number)

      const command = params.command
      const args = params.args
      if ((command === undefined) === (args === undefined)) {
        return yield* toolError("INVALID_PARAM", "Give either 'command' (a shell command line) or 'args' (an argv list), not both and not neither.", {
          fieldErrors: [{ field: command === undefined ? "command" : "args", message: "exactly one of command and args is required" }],
        })
      }
      if (command !== undefined && command.trim() === "") return yield* invalidParam("command", "the command is empty")
      if (args !== undefined && (args.length === 0 || args[0] === "")) return yield* invalidParam("args", "args must start with the program to run")
      // The operating system passes a command line as NUL-terminated strings: a NUL inside cannot be run.
      if (command?.includes("\0")) return yield* invalidParam("command", "the command contains a NUL byte (\\0), which no command line can carry; remove it")
      const nulArg = args?.findIndex((a) => a.includes("\0")) ?? -1
      if (nulArg >= 0) return yield* invalidParam(`args.${nulArg}`, "the argument contains a NUL byte (\\0), which no command line can carry; remove it")

      const background = params.run_in_background === true
      const maxTimeout = setting(background ? "max_background_timeout_ms" : "max_timeout_ms")
      const timeoutMs = params.timeout_ms ?? Math.min(setting(background ? "background_timeout_ms" : "timeout_ms"), maxTimeout)
      if (timeoutMs > maxTimeout) {
        return yield* invalidParam("timeout_ms", `at most ${maxTimeout} ms (${maxTimeout / 60_000} minutes)${background ? " for a background command" : ""}`)
      }
      const shown = command !== undefined ? headline(command) : headline(args!.map(quoteArg).join(" "))
      const request = {
        command,
        args,
        workdir: params.workdir ?? ".",
        shell: config.get("tools.bash.shell", BASH_DEFAULTS.shell),
        env: config.env,
        timeoutMs,
        killGraceMs: setting("kill_grace_ms"),
        drainMs: setting("drain_ms"),
        unconfined: params.sandbox === false,
      }
      const owned = { ...request, shown, callId: call.callId, maxOutputBytes: setting("max_spill_bytes") }
      if (background) return startedResult(yield* withShellErrors(startBackground(owned), params), shown, timeoutMs)
      const read = {
        maxLimit: config.count("tools.read.max_limit", READ_DEFAULTS.max_limit),
        maxLineLength: config.count("tools.read.max_line_length", READ_DEFAULTS.max_line_length),
      }
      // What the command prints while it runs, for the background command it may become.
      const live = new LiveOutput()
      const running = runShell({
        ...request,
        live,
        maxTimeoutMs: maxTimeout,
        // What the model may be shown, sized to the framework's budget.
        budgetBytes: Math.max(512, Math.min(params.max_output_chars ?? setting("max_output_chars"), settings.maxBytes - FRAME_BYTES - shown.length)),
        budgetLines: Math.max(20, settings.maxLines - FRAME_LINES),
        maxSpillBytes: setting("max_spill_bytes"),
      })
      // A program may move the running command to the background (the Agent SDK's background_tasks).
      const outcome = yield* withShellErrors(runForeground(owned, running, (run) => movedEnd(render(params, shown, timeoutMs, maxTimeout, run, read), run), live), params)
      return "done" in outcome ? render(params, shown, timeoutMs, maxTimeout, outcome.done, read) : movedResult(outcome.moved, outcome.live, shown, timeoutMs)
    })),
})

/**
 * A command that ran is a result whatever its exit code — a failing test run's
 * output is exactly what the model needs, so a non-zero exit is "success" with
 * `exit_code` saying so. "partial" when the output was cut, the timeout expired
 * after some output, or background processes had to be ended.
 */
const render = (params: Parameters, shown: string, timeoutMs: number, maxTimeout: number, run: ShellRun, read: ReadLimits): ToolResult => {
  const { outcome, stdout, stderr, exit } = run
  const context = shellContext(params, run.cwd)
  const call = params.command !== undefined ? { command: params.command } : { args: params.args }
  const duration = Math.round(outcome.durationMs * 10) / 10
  const truncated = stdout.shown.truncated || stderr.shown.truncated
  const status = truncated || outcome.timedOut || outcome.heldOpen || run.diskFull !== undefined ? "partial" : "success"

  const lines = [
    `Exit code: ${exit.code}${exit.signal !== null ? ` (killed by ${exit.signal})` : ""}`,
    `Timed out: ${pyBool(outcome.timedOut)}`,
    `Duration: ${duration.toFixed(1)}ms`,
  ]
  if (outcome.killed || exit.signal !== null) lines.push(`Killed: True`)
  if (context.cwd !== ".") lines.push(`Working directory: ${context.cwd}`)
  const notes: Array<string> = []
  if (outcome.timedOut) {
    notes.push(`The command was stopped after ${timeoutMs}ms (timeout); it and everything it started were ended. The output so far is shown.`)
  }
  if (outcome.heldOpen) {
    notes.push(
      "The command exited, but processes it left in the background kept its output open; they were ended and cut off. " +
        "To keep a background process running, redirect its output: `cmd > cmd.log 2>&1 &`.",
    )
  }
  if (run.diskFull) {
    notes.push(
      `The disk holding the output files (${run.diskFull.folder}) is full (${run.diskFull.freeBytes} bytes left): ` +
        "the command may have failed to write part of its output, so what is shown and saved can end early. Free some space and run it again.",
    )
  }
  for (const refusal of run.sandbox.refusals) notes.push(`Sandbox: ${refusal.message}`)
  // Said on every such call: the model (and a script reading one envelope) learns the command was not confined.
  if (run.sandbox.unavailable) notes.push(`Sandbox: this command ran unconfined — ${run.sandbox.unavailable}`)
  if (run.sandbox.projectIgnored) notes.push(`Sandbox: ${run.sandbox.projectIgnored}`)
  // Said when it may be why the command failed (a tool asking for its token), not on every call.
  const withheld = run.sandbox.envWithheld
  if (withheld.length > 0 && exit.code !== 0) {
    notes.push(
      `Sandbox: environment variables that look like secrets were withheld from the command: ${withheld.join(", ")}. ` +
        "If it needs one, the user can let it through with sandbox.allow_env in their own ~/.config/anvil/anvil.json.",
    )
  }
  const section = (name: string, s: StreamReport) => `${name}:\n${s.shown.text === "" ? "(empty)" : s.shown.text}`
  const saved: Array<string> = []
  const describe = (name: string, s: StreamReport) => {
    if (!s.shown.truncated) return
    const size = `${s.totalBytes} bytes, ${counted(s.lines, "line")}${s.shown.binary ? "" : `; ${unseenLines(s)} above`}`
    if (s.path !== null) saved.push(`Full ${name} (${size}): ${s.path}${s.spillProblem ? ` — ${s.spillProblem}` : ""}`)
    else saved.push(`Full ${name} (${size}) was not saved: ${s.spillProblem ?? "unknown reason"}`)
  }
  describe("stdout", stdout)
  describe("stderr", stderr)

  const hints: Array<RetrievalHint> = [...unseenHints(stdout, read, "high", true)]
  hints.push(...unseenHints(stderr, read, hints.length === 0 ? "high" : "medium", false))
  if (run.sandbox.refusals.some((x) => x.kind !== "host")) hints.push(hint("Bash", "low", { ...call, sandbox: false }))
  if (outcome.timedOut) {
    const longer = Math.min(timeoutMs * 2, maxTimeout)
    if (longer > timeoutMs) hints.push(hint("Bash", "medium", { ...call, timeout_ms: longer }))
  }

  const text = [lines.join("\n"), ...notes, section("stdout", stdout), section("stderr", stderr), truncated ? ["[output truncated]", ...saved].join("\n") : ""]
    .filter((p) => p !== "")
    .join("\n\n")
  const totalLines = stdout.lines + stderr.lines
  return {
    status,
    header: `Bash: ${shown}`,
    data: {
      stdout: stdout.shown.text,
      stderr: stderr.shown.text,
      exit_code: exit.code,
      signal: exit.signal,
      timed_out: outcome.timedOut,
      killed: outcome.killed || exit.signal !== null,
      duration_ms: duration,
      truncated,
      output_path: stdout.path,
      stderr_path: stderr.path,
      sandbox: {
        mode: run.sandbox.mode,
        refused: run.sandbox.refusals,
        env_withheld: withheld,
        ...(run.sandbox.unavailable ? { unavailable: run.sandbox.unavailable } : {}),
        ...(run.sandbox.projectIgnored ? { project_ignored: run.sandbox.projectIgnored } : {}),
      },
    },
    text,
    stats: { stdout_bytes: stdout.totalBytes, stderr_bytes: stderr.totalBytes, stdout_lines: stdout.lines, stderr_lines: stderr.lines },
    context,
    hints,
    ...(truncated
      ? { truncation: { reason: "output_limit", total_estimate: totalLines } }
      : outcome.timedOut
        ? { truncation: { reason: "timeout", total_estimate: totalLines } }
        : {}),
    meta: { duration_ms: duration, exit_code: exit.code, timeout_ms: timeoutMs },
  }
}
