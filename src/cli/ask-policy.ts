import { Effect } from "effect"
import { describeSubjects } from "../permission/subjects.ts"
import { allowFlag } from "../permission/allow-rule.ts"
import { rulesForAnswer, type AskAnswer, type PermissionRequest } from "../permission/permissions.ts"
import { UserTerminal, type UserTerminalShape } from "../terminal/user-terminal.ts"
import type { CliIO } from "./output.ts"

/** The person at the terminal, from the CLI's terminal layer. */
export const terminalOf = async (io: CliIO): Promise<UserTerminalShape> =>
  Effect.runPromise(
    Effect.gen(function* () {
      return yield* UserTerminal
    }).pipe(Effect.provide(io.terminal ?? UserTerminal.none)),
  )

/** How "ask" is answered without a person: --yes approves; otherwise deny, telling the model how the user could approve. */
export const scriptedAsk = (yes: boolean) => (request: PermissionRequest): Effect.Effect<AskAnswer> => {
  // Every rule the call needs (a compound command: one per simple command), each as a shell takes it.
  const flags = rulesForAnswer(request.tool, request.subjects).map(allowFlag).join(" ")
  const what = describeSubjects(request.subjects)
  if (request.unconfined) {
    return Effect.succeed({
      deny:
        `The '${request.tool.name}' call${what} asks to run outside the command sandbox, which only a person may approve, and anvil is running without a terminal to ask (--yes does not cover it). ` +
        `It was not run. Run it sandboxed (leave out sandbox: false), or the user can allow this exact command with ${flags}.`,
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
      `It was not run. The user can approve such calls with --yes or ${flags}; do not retry it unchanged.`,
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
