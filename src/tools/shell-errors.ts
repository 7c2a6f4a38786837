import { hint } from "../protocol/hint.ts"
import { inTheWayNote } from "../workspace/file-in-the-way.ts"
import { translateDomainErrors } from "./domain-errors.ts"
import { invalidParam, toolError, type ToolError } from "../protocol/tool-error.ts"
import {
  BackgroundUnavailable,
  CommandNotStarted,
  CommandTimedOut,
  NoSuchBackgroundShell,
  SandboxRefused,
  WorkdirNotDirectory,
  WorkdirNotFound,
  type ShellError,
} from "../shell/shell-error.ts"
import { quoteArg } from "../shell/run-shell.ts"

/** What of the call the errors' context and suggestions repeat. */
interface ShellCall {
  readonly command?: string | undefined
  readonly args?: ReadonlyArray<string> | undefined
  readonly workdir?: string | undefined
}

/** The context a result of this call carries: the working directory, and the resolved path when one was given. */
export const shellContext = (call: ShellCall, cwd: string) => ({ cwd, ...(call.workdir !== undefined ? { path_resolved: cwd } : {}) })

/** The shell domain's errors as envelope errors (the one place for the bash tool). */
export const shellToolError = (e: ShellError, call: ShellCall): ToolError => {
  const context = shellContext(call, e.cwd)
  switch (e._tag) {
    case "WorkdirNotFound":
      return toolError("NOT_FOUND", `Working directory not found: ${e.cwd}${inTheWayNote(e.inTheWay)}`, {
        fieldErrors: [{ field: "workdir", message: "no such directory" }],
        ...(e.opened ? { context } : { hints: [hint("LS", "medium", { path: e.folder ?? "." })] }),
      })
    case "WorkdirNotDirectory":
      return invalidParam("workdir", `${e.cwd} is not a directory`)
    case "SandboxRefused":
      return toolError(e.refusedBy === "rules" ? "PERMISSION_DENIED" : "EXECUTION_ERROR", e.message, { context, details: e.nextStep })
    case "CommandNotStarted":
      if (e.kind === "not_found") {
        return toolError("NOT_FOUND", `Command not found: ${e.file}`, {
          fieldErrors: [{ field: call.command !== undefined ? "command" : "args", message: "no such program" }],
          hints: [hint("Bash", "medium", { command: `command -v ${quoteArg(e.file)}` })],
          context,
        })
      }
      if (e.kind === "not_executable") {
        return toolError("PERMISSION_DENIED", `Cannot execute ${e.file}: permission denied (not an executable file).`, {
          hints: [hint("Bash", "medium", { command: `ls -ld ${quoteArg(e.file)}` })],
          context,
        })
      }
      return toolError("EXECUTION_ERROR", `Could not start ${e.file}: ${e.message}`, { context })
    case "CommandTimedOut": {
      const longer = Math.min(e.timeoutMs * 2, e.maxTimeoutMs)
      return toolError("TIMEOUT", `Command timed out after ${e.timeoutMs}ms`, {
        retryable: true,
        context,
        details: `The command printed nothing before it was stopped; it and everything it started were ended.`,
        hints: longer > e.timeoutMs ? [hint("Bash", "medium", { ...(call.command !== undefined ? { command: call.command } : { args: call.args }), timeout_ms: longer })] : [],
      })
    }
    case "BackgroundUnavailable":
      return e.reason !== undefined
        ? toolError("EXECUTION_ERROR", `The command could not be started in the background: ${e.reason}`, { context })
        : invalidParam(
            "run_in_background",
            "a background command needs a session that outlives the call (anvil run, anvil chat, an Agent SDK program); `anvil tool` ends with its one call. Run the command without run_in_background.",
            [hint("Bash", "high", call.command !== undefined ? { command: call.command } : { args: call.args })],
          )
  }
}

/** A background command id the session does not know: NOT_FOUND naming those it has. */
export const noSuchShellError = (e: NoSuchBackgroundShell): ToolError =>
  toolError(
    "NOT_FOUND",
    `No background command '${e.id}' in this session. ${e.known.length > 0 ? `Its background commands: ${e.known.join(", ")}.` : "It started none (Bash with run_in_background: true starts one)."}`,
    {
      fieldErrors: [{ field: "id", message: "no such background command" }],
      // With none started, no id is right: asking for one again would not help.
      ...(e.known.length === 0 ? { nextStep: "there is no background command to read or stop; a command run without run_in_background gave its output in its own answer." } : {}),
    },
  )

/** A read or stop of a background command with an unknown id translated at the boundary. */
export const withBackgroundErrors = translateDomainErrors([NoSuchBackgroundShell], noSuchShellError)

/** A run with the shell domain's errors translated at the boundary (the workspace's pass through). */
export const withShellErrors = translateDomainErrors([WorkdirNotFound, WorkdirNotDirectory, SandboxRefused, CommandNotStarted, CommandTimedOut, BackgroundUnavailable], shellToolError)
