import { Effect, Schema } from "effect"
import { FileSystem } from "effect/FileSystem"
import { Config } from "../config/config.ts"
import { OutputSettings } from "../output/output-settings.ts"
import { SpillStore } from "../output/spill-store.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { OutputCapture, type CapturedStream, type SpillTarget } from "../process/output-capture.ts"
import { excerpt, lineCount, share, type Excerpt } from "../process/output-excerpt.ts"
import { ProcessRunner, type ProcessOutcome } from "../process/process-runner.ts"
import type { SandboxRefusal } from "../sandbox/diagnose.ts"
import { Sandbox } from "../sandbox/sandbox.ts"
import { closeQuietly, fdPath } from "../workspace/checked-fs.ts"
import { openChecked } from "../workspace/checked-open.ts"
import { defineTool, type ToolResult } from "../tool-framework/definition.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import { Workspace } from "../workspace/workspace.ts"
import description from "./bash.md" with { type: "text" }
import { BASH_DEFAULTS } from "../config/sections/tools.ts"


/** Lowest accepted timeout (also what `timeout_ms` may be set to in tests). */
const MIN_TIMEOUT_MS = 100
/** Room left in the framework's budget for the header, status lines, paths and hints. */
const FRAME_BYTES = 2048
const FRAME_LINES = 40

const Parameters = Schema.Struct({
  command: Schema.optionalKey(
    Schema.String.annotate({ description: "Shell command line, run with `/bin/sh -lc` (pipes, redirects, &&, globs work)." }),
  ),
  args: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({
      description: 'Program and arguments run directly without a shell, e.g. ["rg", "-n", "parseConfig", "src"]. Give `command` or `args`, not both.',
    }),
  ),
  workdir: Schema.optionalKey(
    Schema.String.annotate({ description: "Directory to run in, relative to the working directory; must stay inside the project. Default: the working directory." }),
  ),
  timeout_ms: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(MIN_TIMEOUT_MS)).annotate({
      description: "Milliseconds before the command and everything it started are ended. Default 120000 (2 min), max 600000 (10 min).",
    }),
  ),
  max_output_chars: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(200)).annotate({
      description: "How much output to show (stdout and stderr together), default 30000; the rest is left out of the middle and saved to a file.",
    }),
  ),
  description: Schema.optionalKey(
    Schema.String.annotate({ description: "A few words on what the command does, shown to the user when approval is asked." }),
  ),
  sandbox: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "false runs this one command outside the command sandbox (writes anywhere, network, secrets). The user is always asked first; use it only when the sandbox refused something the task really needs. Default true.",
    }),
  ),
})
type Parameters = typeof Parameters.Type

const pyBool = (b: boolean) => (b ? "True" : "False")

/** How an argv reads on a command line. */
const quoteArg = (a: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)

/** The header's short form of a command: its first line, at most 120 characters. */
const headline = (s: string) => {
  const first = s.trim().split("\n")[0] ?? ""
  const cut = first.length > 120 ? `${first.slice(0, 119)}…` : first
  return first === s.trim() ? cut : `${cut} …`
}

/**
 * bash: runs a shell command line through
 * `/bin/sh -lc`, or an argv without a shell, inside the project.
 *
 * - Each run is its own process group; stdin is /dev/null. On timeout,
 *   cancellation, or when background processes keep the output open after the
 *   command exits, the whole group is ended (TERM, then KILL).
 * - Output is streamed: both streams are kept apart, only their first and last
 *   parts stay in memory, and a stream too large to show is saved whole to the
 *   spill folder (`data.output_path`, `data.stderr_path`). The text shows the
 *   head and the tail with a marker of what was left out, sized to fit the
 *   framework's budget, so the framework normally has nothing left to cut.
 * - Status: a command that ran is a result whatever its exit code — a failing
 *   test run's output is exactly what the model needs, so a non-zero exit is
 *   "success" with `exit_code` saying so (error is for "no usable
 *   result"). "partial" when the output was cut, the timeout expired after some
 *   output, or background processes had to be ended; "error" TIMEOUT
 *   (retryable) when the timeout expired before any output.
 * - The environment is passed through unchanged (secrets included, never
 *   echoed by anvil); login profiles that reset PATH get the caller's PATH put
 *   back in front.
 */
export const bashTool = defineTool({
  name: "bash",
  title: "Bash",
  description,
  aliases: ["shell", "run_command", "execute_command"],
  parameterAliases: { cmd: "command", argv: "args", cwd: "workdir", working_dir: "workdir", timeout: "timeout_ms" },
  permission: "ask",
  sandboxedCall: (params: Parameters) => params.sandbox !== false,
  parameters: Parameters,
  run: (params: Parameters) =>
    Effect.gen(function* () {
      const config = yield* Config
      const workspace = yield* Workspace
      const settings = yield* OutputSettings
      const store = yield* SpillStore
      const runner = yield* ProcessRunner
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

      const maxTimeout = setting("max_timeout_ms")
      const timeoutMs = params.timeout_ms ?? Math.min(setting("timeout_ms"), maxTimeout)
      if (timeoutMs > maxTimeout) {
        return yield* invalidParam("timeout_ms", `at most ${maxTimeout} ms (${maxTimeout / 60_000} minutes)`)
      }

      const dir = yield* workspace.resolve(params.workdir ?? ".", "workdir")
      if (!dir.exists) {
        return yield* toolError("NOT_FOUND", `Working directory not found: ${dir.display}`, {
          fieldErrors: [{ field: "workdir", message: "no such directory" }],
          hints: [hint("LS", "medium", { path: "." })],
        })
      }
      const info = yield* (yield* FileSystem).stat(dir.real).pipe(Effect.option)
      if (info._tag === "Some" && info.value.type !== "Directory") {
        return yield* invalidParam("workdir", `${dir.display} is not a directory`)
      }
      const context = { cwd: dir.display, ...(params.workdir !== undefined ? { path_resolved: dir.display } : {}) }

      const env: Record<string, string> = {}
      for (const [k, v] of Object.entries(config.env)) if (typeof v === "string") env[k] = v
      const shown = command !== undefined ? headline(command) : headline(args!.map(quoteArg).join(" "))
      const [file, argv] =
        command !== undefined
          ? [config.get("tools.bash.shell", BASH_DEFAULTS.shell), ["-lc", withCallerPath(command, env)]]
          : [args![0]!, args!.slice(1)]
      if (command !== undefined && env.PATH !== undefined) env[CALLER_PATH] = env.PATH

      // What the model may be shown, sized to the framework's budget.
      const budgetBytes = Math.max(
        512,
        Math.min(params.max_output_chars ?? setting("max_output_chars"), settings.maxBytes - FRAME_BYTES - shown.length),
      )
      const budgetLines = Math.max(20, settings.maxLines - FRAME_LINES)
      const capacity = Math.ceil(budgetBytes / 2)
      const maxSpillBytes = setting("max_spill_bytes")
      const spillTo = (stream: "stdout" | "stderr"): SpillTarget => ({
        open: () =>
          Effect.runPromise(
            store.openStream("Bash", `${stream}.txt`).pipe(
              Effect.map((s) => ({
                path: s.path,
                write: (bytes: Uint8Array) => Effect.runPromise(s.write(bytes)),
                close: () => Effect.runPromise(s.close),
              })),
              Effect.catch((e) => Effect.succeed({ error: e.message })),
            ),
          ),
      })
      const stdout = new OutputCapture({ capacity, maxSpillBytes, spill: spillTo("stdout") })
      const stderr = new OutputCapture({ capacity, maxSpillBytes, spill: spillTo("stderr") })

      // The working folder is opened and checked now and the process started in that very folder (through its
      // descriptor), so a link swapped in after the check cannot move the command out of the root.
      const folder = yield* openChecked(workspace.contains, dir.real, params.workdir ?? ".", dir.display, "workdir")
      if (folder === undefined || !folder.stat.isDirectory()) {
        closeQuietly(folder?.fd)
        return yield* toolError("NOT_FOUND", `Working directory not found: ${dir.display}`, {
          fieldErrors: [{ field: "workdir", message: "no such directory" }],
          context,
        })
      }
      const sandbox = yield* Sandbox
      const wrapped = yield* sandbox
        .wrap({ cwd: dir.real, unconfined: params.sandbox === false })
        .pipe(
          Effect.mapError((e) => toolError("EXECUTION_ERROR", e.message, { context, details: "Install bubblewrap, or set sandbox.require to false in anvil.json to run commands unconfined." })),
          Effect.tapError(() => Effect.sync(() => closeQuietly(folder.fd))),
        )
      const outcome = yield* runner
        .run({
          file,
          args: argv,
          cwd: dir.real,
          cwdHandle: fdPath(folder.fd),
          env,
          timeoutMs,
          killGraceMs: setting("kill_grace_ms"),
          drainMs: setting("drain_ms"),
          stdout,
          stderr,
          ...(wrapped.wrap ? { wrap: wrapped.wrap } : {}),
        })
        .pipe(
          Effect.ensuring(Effect.sync(() => closeQuietly(folder.fd))),
          Effect.ensuring(Effect.promise(() => Promise.all([stdout.finish(), stderr.finish()]))),
          // Stand-ins go however the run ends (the output is read for refusals below).
          Effect.ensuring(wrapped.finish("")),
          Effect.mapError((e) =>
            e.code === "ENOENT"
              ? toolError("NOT_FOUND", `Command not found: ${file}`, {
                  fieldErrors: [{ field: command !== undefined ? "command" : "args", message: "no such program" }],
                  hints: [hint("Bash", "medium", { command: `command -v ${quoteArg(file)}` })],
                  context,
                })
              : e.code === "EACCES"
                ? toolError("PERMISSION_DENIED", `Cannot execute ${file}: permission denied.`, { context })
                : e.code === "ENOTDIR"
                  ? invalidParam("workdir", `${dir.display} is not a directory`)
                  : toolError("EXECUTION_ERROR", `Could not start ${file}: ${e.message}`, { context }),
          ),
        )

      let out = stdout.snapshot()
      let err = stderr.snapshot()
      const refusals = yield* wrapped.finish(`${tailText(out)}\n${tailText(err)}`)
      const sandboxed = { mode: wrapped.confined ? sandbox.status.settings.mode : "off", refusals }
      if (outcome.timedOut && out.totalBytes + err.totalBytes === 0) {
        const longer = Math.min(timeoutMs * 2, maxTimeout)
        return yield* toolError("TIMEOUT", `Command timed out after ${timeoutMs}ms`, {
          retryable: true,
          context,
          details: `The command printed nothing before it was stopped; it and everything it started were ended.`,
          hints:
            longer > timeoutMs
              ? [hint("Bash", "medium", { ...(command !== undefined ? { command } : { args }), timeout_ms: longer })]
              : [],
        })
      }

      // Share the budget: each stream gets what it needs, the larger one the rest.
      const [outBytes, errBytes] = share(budgetBytes, Math.min(out.totalBytes, budgetBytes), Math.min(err.totalBytes, budgetBytes))
      const [outLines, errLines] = share(budgetLines, Math.min(lineCount(out), budgetLines), Math.min(lineCount(err), budgetLines))
      const outShown = excerpt(out, Math.max(outBytes, 64), Math.max(outLines, 2))
      const errShown = excerpt(err, Math.max(errBytes, 64), Math.max(errLines, 2))
      // A stream shown cut must be on disk whole, even when it fit in memory.
      if (outShown.truncated) yield* Effect.promise(() => stdout.ensureSpilled())
      if (errShown.truncated) yield* Effect.promise(() => stderr.ensureSpilled())
      out = stdout.snapshot()
      err = stderr.snapshot()

      return render({ params, shown, outcome, timeoutMs, maxTimeout, out, err, outShown, errShown, context, display: workspace.display, sandboxed })
    }),
})

/** The environment variable carrying the caller's PATH past the login profile. */
const CALLER_PATH = "ANVIL_CALLER_PATH"

/**
 * `sh -l` reads /etc/profile, which on many systems sets PATH from scratch and
 * would hide the tools the user's own PATH provides (node_modules/.bin, nvm,
 * cargo…). The caller's PATH is put back in front of whatever the profile
 * chose, on the command's own first line so error line numbers do not move.
 */
const withCallerPath = (command: string, env: Readonly<Record<string, string>>): string =>
  env.PATH === undefined
    ? command
    : `PATH="$${CALLER_PATH}\${PATH:+:$PATH}"; export PATH; unset ${CALLER_PATH}; ${command}`

interface RenderInput {
  readonly params: Parameters
  readonly shown: string
  readonly outcome: ProcessOutcome
  readonly timeoutMs: number
  readonly maxTimeout: number
  readonly out: CapturedStream
  readonly err: CapturedStream
  readonly outShown: Excerpt
  readonly errShown: Excerpt
  readonly context: Readonly<Record<string, unknown>>
  readonly display: (absolute: string) => string
  /** The sandbox mode the command ran under ("off" when unconfined) and what it refused. */
  readonly sandboxed: { readonly mode: string; readonly refusals: ReadonlyArray<SandboxRefusal> }
}

/** The last part of a captured stream as text, for reading the sandbox's refusals. */
const tailText = (c: CapturedStream): string => new TextDecoder().decode(c.tail.length > 0 ? c.tail : c.head).slice(-8000)

const render = (r: RenderInput): ToolResult => {
  const { outcome, out, err, outShown, errShown } = r
  const duration = Math.round(outcome.durationMs * 10) / 10
  const outPath = out.spillPath !== undefined ? r.display(out.spillPath) : null
  const errPath = err.spillPath !== undefined ? r.display(err.spillPath) : null
  const truncated = outShown.truncated || errShown.truncated
  const status = truncated || outcome.timedOut || outcome.heldOpen ? "partial" : "success"

  const lines = [
    `Exit code: ${outcome.exitCode ?? `none (ended by ${outcome.signal ?? "a signal"})`}`,
    `Timed out: ${pyBool(outcome.timedOut)}`,
    `Duration: ${duration.toFixed(1)}ms`,
  ]
  if (outcome.killed) lines.push(`Killed: True`)
  if (r.context.cwd !== ".") lines.push(`Working directory: ${r.context.cwd}`)
  const notes: Array<string> = []
  if (outcome.timedOut) {
    notes.push(
      `The command was stopped after ${r.timeoutMs}ms (timeout); it and everything it started were ended. The output so far is shown.`,
    )
  }
  if (outcome.heldOpen) {
    notes.push(
      "The command exited, but processes it left in the background kept its output open; they were ended and cut off. " +
        "To keep a background process running, redirect its output: `cmd > cmd.log 2>&1 &`.",
    )
  }
  for (const refusal of r.sandboxed.refusals) notes.push(`Sandbox: ${refusal.message}`)
  const section = (name: string, e: Excerpt) => `${name}:\n${e.text === "" ? "(empty)" : e.text}`
  const saved: Array<string> = []
  const describe = (name: string, c: CapturedStream, path: string | null, e: Excerpt) => {
    if (!e.truncated) return
    const size = `${c.totalBytes} bytes, ${lineCount(c)} lines`
    if (path !== null) saved.push(`Full ${name} (${size}): ${path}${c.spillProblem ? ` — ${c.spillProblem}` : ""}`)
    else saved.push(`Full ${name} (${size}) was not saved: ${c.spillProblem ?? "unknown reason"}`)
  }
  describe("stdout", out, outPath, outShown)
  describe("stderr", err, errPath, errShown)

  const hints: Array<RetrievalHint> = []
  if (outShown.truncated && outPath !== null) {
    hints.push(hint("Read", "high", { path: outPath, offset: outShown.omittedFromLine, limit: 200 }))
    hints.push(hint("Grep", "medium", { pattern: "<keyword>", path: outPath }))
  }
  if (errShown.truncated && errPath !== null) {
    hints.push(hint("Read", hints.length === 0 ? "high" : "medium", { path: errPath, offset: errShown.omittedFromLine, limit: 200 }))
  }
  if (r.sandboxed.refusals.some((x) => x.kind !== "host")) {
    const call = r.params.command !== undefined ? { command: r.params.command } : { args: r.params.args }
    hints.push(hint("Bash", "low", { ...call, sandbox: false }))
  }
  if (outcome.timedOut) {
    const longer = Math.min(r.timeoutMs * 2, r.maxTimeout)
    if (longer > r.timeoutMs) {
      const call = r.params.command !== undefined ? { command: r.params.command } : { args: r.params.args }
      hints.push(hint("Bash", "medium", { ...call, timeout_ms: longer }))
    }
  }

  const text = [
    lines.join("\n"),
    ...notes,
    section("stdout", outShown),
    section("stderr", errShown),
    truncated ? ["[output truncated]", ...saved].join("\n") : "",
  ]
    .filter((p) => p !== "")
    .join("\n\n")

  return {
    status,
    header: `Bash: ${r.shown}`,
    data: {
      stdout: outShown.text,
      stderr: errShown.text,
      exit_code: outcome.exitCode,
      signal: outcome.signal,
      timed_out: outcome.timedOut,
      killed: outcome.killed,
      duration_ms: duration,
      truncated,
      output_path: outPath,
      stderr_path: errPath,
      sandbox: { mode: r.sandboxed.mode, refused: r.sandboxed.refusals },
    },
    text,
    stats: {
      stdout_bytes: out.totalBytes,
      stderr_bytes: err.totalBytes,
      stdout_lines: lineCount(out),
      stderr_lines: lineCount(err),
    },
    context: r.context,
    hints,
    ...(truncated
      ? {
          truncation: {
            reason: "output_limit",
            total_estimate: lineCount(out) + lineCount(err),
          },
        }
      : outcome.timedOut
        ? { truncation: { reason: "timeout", total_estimate: lineCount(out) + lineCount(err) } }
        : {}),
    meta: { duration_ms: duration, exit_code: outcome.exitCode, timeout_ms: r.timeoutMs },
  }
}
