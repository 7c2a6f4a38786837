import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { counted } from "../protocol/plural.ts"
import { describeEnd } from "../shell/background-end.ts"
import type { BackgroundOutput, BackgroundShellView, MovedEnd } from "../shell/background-types.ts"
import type { ShellRun } from "../shell/run-shell.ts"
import type { ToolResult } from "../tool-framework/definition.ts"

/**
 * What the bash tool answers for a command started in the background, and what bash_output and bash_stop answer
 * about one: its id, state and output file, then the output that is new since the last read.
 */

/** "running", "exited with code 2", "was ended by its timeout", … */
const stateLine = (shell: BackgroundShellView): string => (shell.end === undefined ? "running" : describeEnd(shell.end))

/** The facts every answer about a background command gives, as data. */
const shellData = (shell: BackgroundShellView) => ({
  id: shell.id,
  command: shell.command,
  status: shell.status,
  exit_code: shell.end?.exitCode ?? null,
  signal: shell.end?.signal ?? null,
  output_path: shell.outputPath,
  output_bytes: shell.totalBytes,
  ...(shell.end !== undefined ? { duration_ms: shell.end.durationMs } : {}),
  ...(shell.sandbox !== undefined ? { sandbox: { mode: shell.sandbox.mode, refused: shell.end?.refusals ?? [], env_withheld: shell.sandbox.envWithheld } } : {}),
})

/** Sandbox notes and refusals of a command, as lines for the model. */
const sandboxNotes = (shell: BackgroundShellView): Array<string> => [
  ...(shell.end?.refusals ?? []).map((r) => `Sandbox: ${r.message}`),
  ...(shell.sandbox?.unavailable ? [`Sandbox: this command runs unconfined — ${shell.sandbox.unavailable}`] : []),
]

/** The bash tool's answer for a command it started in the background. */
export const startedResult = (shell: BackgroundShellView, shown: string, timeoutMs: number): ToolResult => {
  const lines = [
    `Started in the background: ${shell.id} (${stateLine(shell)})`,
    `Output (stdout and stderr together): ${shell.outputPath}`,
    ...(shell.status === "running" ? [`It is ended after ${timeoutMs} ms, with bash_stop, or when the session ends.`] : []),
    `Read what it printed since the last read with bash_output(id="${shell.id}")${shell.status === "running" ? ` (block: true waits for it to end); end it with bash_stop(id="${shell.id}")` : ""}.`,
    ...sandboxNotes(shell),
  ]
  return {
    header: `Bash (background): ${shown}`,
    data: { ...shellData(shell), background_task_id: shell.id, timeout_ms: timeoutMs },
    text: lines.join("\n"),
    hints: [hint("BashOutput", "high", { id: shell.id })],
    meta: { background: true, timeout_ms: timeoutMs },
  }
}

/** A moved command's end: its answer as the call would have given it, for its output file. */
export const movedEnd = (result: ToolResult, run: ShellRun): MovedEnd => ({
  text: `${result.header ?? "Bash"}\n\n${result.text}\n`,
  exitCode: run.exit.code,
  signal: run.exit.signal,
  timedOut: run.outcome.timedOut,
  refusals: run.sandbox.refusals,
  sandbox: run.sandbox,
})

/** The bash tool's answer for a command the program moved to the background while the call waited for it. */
export const movedResult = (shell: BackgroundShellView, live: boolean, shown: string, timeoutMs: number): ToolResult => ({
  header: `Bash (moved to the background): ${shown}`,
  data: { ...shellData(shell), background_task_id: shell.id, moved: true, timeout_ms: timeoutMs },
  text: [
    `The user moved this command to the background while it ran; it goes on as ${shell.id} (${stateLine(shell)}).`,
    live
      ? `What it printed so far and what it prints from now on go to ${shell.outputPath} (stdout and stderr as they come), as it prints it.`
      : `When it ends, its whole answer (exit code, stdout, stderr) is in ${shell.outputPath}.`,
    `It is ended after ${timeoutMs} ms from its start, with bash_stop, or when the session ends.`,
    `Read it with bash_output(id="${shell.id}") (block: true waits for it to end); end it with bash_stop(id="${shell.id}").`,
  ].join("\n"),
  hints: [hint("BashOutput", "high", { id: shell.id, block: true })],
  meta: { background: true, moved: true, timeout_ms: timeoutMs },
})

/** What bash_output answers: the state, then the output that is new since the last read. */
export const outputResult = (out: BackgroundOutput, maxLineLength: number, maxLimit: number): ToolResult => {
  const { shell, shown } = out
  const lines = [`${shell.id}: ${stateLine(shell)}`, `Command: ${shell.command}`]
  if (out.filtered) lines.push(`Filter: ${counted(out.filtered.kept, "line")} of ${counted(out.filtered.of, "new line")} matched (the others are passed over)`)
  lines.push(...sandboxNotes(shell))
  const body = out.newBytes === 0 ? "(no new output)" : shown.text === "" ? "(nothing matched)" : shown.text
  const hints: Array<RetrievalHint> = []
  if (shown.truncated && !shown.binary && out.filtered === undefined) {
    // The part left out, in the whole output file's numbering (Read's offset is lines skipped).
    const offset = out.fromLine + shown.omittedFromLine
    const omitted = shown.omittedToLine - shown.omittedFromLine
    if (shown.omittedBytes <= (shown.omittedLines + 1) * maxLineLength) hints.push(hint("Read", "high", { path: shell.outputPath, offset, limit: Math.max(1, Math.min(omitted, maxLimit)) }))
    lines.push(`Part of the new output is not shown; the whole output is in ${shell.outputPath}.`)
  }
  if (shell.status === "running") hints.push(hint("BashOutput", "medium", { id: shell.id, block: true }))
  return {
    ...(shown.truncated ? { status: "partial" as const } : {}),
    header: `BashOutput: ${shell.id}`,
    data: { ...shellData(shell), output: shown.text, new_bytes: out.newBytes, new_lines: out.newLines, truncated: shown.truncated, ...(out.filtered ? { filtered: out.filtered } : {}) },
    text: `${lines.join("\n")}\n\nNew output:\n${body}`,
    stats: { new_bytes: out.newBytes, new_lines: out.newLines },
    hints,
  }
}

/** What bash_stop answers. */
export const stoppedResult = (shell: BackgroundShellView, wasRunning: boolean): ToolResult => ({
  header: `KillShell: ${shell.id}`,
  data: { ...shellData(shell), stopped: wasRunning, message: wasRunning ? `Stopped ${shell.id}` : `${shell.id} had already ended` },
  text: [`${shell.id}: ${wasRunning ? "" : "had already ended; "}${stateLine(shell)}`, `Command: ${shell.command}`, `Its output stays in ${shell.outputPath}.`].join("\n"),
})
