/**
 * Runs one repository command hook (a Claude Code plugin's PreToolUse /
 * PostToolUse command): `sh -c COMMAND` in the project root with the event
 * as JSON on stdin, in its own process group so a time-out ends the command
 * and everything it started. Never throws: a command that cannot start is
 * exit code 127 with the reason on stderr.
 */

export interface CommandHookOutcome {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
  readonly timedOut: boolean
}

/** Output kept per stream; a hook's answer is a line or a short JSON object. */
const MAX_OUTPUT = 64 * 1024

export const runCommandHook = async (input: {
  readonly command: string
  readonly cwd: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly stdin: string
  readonly timeoutMs: number
}): Promise<CommandHookOutcome> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(input.env)) if (typeof v === "string") env[k] = v
  let child: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>
  try {
    child = Bun.spawn(["sh", "-c", input.command], {
      cwd: input.cwd,
      env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    })
  } catch (e) {
    return { exitCode: 127, stdout: "", stderr: `cannot start the hook: ${(e as Error).message}`, timedOut: false }
  }
  let timedOut = false
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid, signal)
    } catch {
      // already gone
    }
  }
  const timer = setTimeout(() => {
    timedOut = true
    killGroup("SIGTERM")
    setTimeout(() => killGroup("SIGKILL"), 500).unref()
  }, input.timeoutMs)
  try {
    child.stdin.write(input.stdin)
    await child.stdin.end()
  } catch {
    // The hook need not read its input.
  }
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  clearTimeout(timer)
  // A hook's own background children end with it.
  killGroup("SIGKILL")
  return {
    exitCode: timedOut ? 124 : exitCode,
    stdout: stdout.slice(0, MAX_OUTPUT),
    stderr: timedOut ? `timed out after ${input.timeoutMs} ms` : stderr.slice(0, MAX_OUTPUT),
    timedOut,
  }
}
