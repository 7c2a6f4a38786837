import { createTwoFilesPatch } from "diff"
import { type Cause, Effect, Queue } from "effect"
import { readFileSync } from "node:fs"
import { isAbsolute, join } from "node:path"
import type { AskAnswer, PermissionRequest } from "../permission/permissions.ts"
import { rulesForAnswer } from "../permission/permissions.ts"
import { showAllowRule } from "../permission/allow-rule.ts"
import type { Style } from "./style.ts"
import { colorDiff } from "./tool-render.ts"
import type { TerminalKey, UserTerminalShape } from "./user-terminal.ts"
import { visibleText } from "./visible-text.ts"
import { isRecord } from "../protocol/is-record.ts"


const readOr = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

const MAX_PREVIEW_LINES = 40

/**
 * What a call will do, for the approval prompt: the diff a write, edit or
 * multiedit would make (computed from the file as it is now), the patch, the
 * command, or the parameters.
 */
export const callPreview = (request: PermissionRequest, cwd: string): string => {
  const p = request.params
  const name = request.tool.name
  if (!isRecord(p)) return JSON.stringify(p)
  const filePath = typeof p.path === "string" ? p.path : typeof p.file_path === "string" ? p.file_path : undefined
  const abs = filePath ? (isAbsolute(filePath) ? filePath : join(cwd, filePath)) : undefined
  const diffOf = (before: string, after: string) => {
    const patch = createTwoFilesPatch(`a/${filePath}`, `b/${filePath}`, before, after, "", "", { context: 3 })
    return patch.split("\n").slice(2).join("\n").trimEnd()
  }
  if (name === "write" && abs && typeof p.content === "string") return diffOf(readOr(abs) ?? "", p.content)
  if (name === "edit" && abs && typeof p.old_string === "string" && typeof p.new_string === "string") {
    const before = readOr(abs)
    if (before !== undefined && before.includes(p.old_string)) {
      const after = p.replace_all === true ? before.split(p.old_string).join(p.new_string) : before.replace(p.old_string, () => p.new_string as string)
      return diffOf(before, after)
    }
  }
  if (name === "multiedit" && abs && Array.isArray(p.edits)) {
    const before = readOr(abs)
    if (before !== undefined) {
      let after = before
      for (const e of p.edits) {
        if (!isRecord(e) || typeof e.old_string !== "string" || typeof e.new_string !== "string") continue
        after = e.replace_all === true ? after.split(e.old_string).join(e.new_string) : after.replace(e.old_string, () => e.new_string as string)
      }
      return diffOf(before, after)
    }
  }
  if (typeof p.patch === "string") return p.patch.trimEnd()
  if (typeof p.command === "string") return `$ ${p.command}`
  if (typeof p.url === "string") return `${typeof p.method === "string" ? p.method : "GET"} ${p.url}`
  return JSON.stringify(p, null, 2)
}

/** A line of text typed at the prompt (Backspace edits, Enter ends, Esc or the end of input gives up). */
const readReason = (keys: Queue.Dequeue<TerminalKey, Cause.Done>, terminal: UserTerminalShape) =>
  Effect.gen(function* () {
    let text = ""
    for (;;) {
      const key = yield* Queue.take(keys).pipe(Effect.orElseSucceed(() => undefined))
      if (key === undefined || key.name === "escape" || (key.ctrl && key.name === "c")) {
        yield* terminal.write("\n")
        return undefined
      }
      if (key.name === "return") {
        yield* terminal.write("\n")
        return text
      }
      if (key.name === "backspace") {
        if (text !== "") {
          text = text.slice(0, -1)
          yield* terminal.write("\b \b")
        }
      } else if (key.text !== "" && !key.ctrl) {
        text += key.text
        yield* terminal.write(key.text)
      }
    }
  })

const clipLines = (text: string) => {
  const lines = text.split("\n")
  return lines.length > MAX_PREVIEW_LINES ? `${lines.slice(0, MAX_PREVIEW_LINES).join("\n")}\n… ${lines.length - MAX_PREVIEW_LINES} more lines` : text
}

/**
 * Asks the person at the terminal about one call: shows it (with the diff
 * for edits) and takes one key — 1/y once, 2/s always for this session,
 * 3/a always (saved to anvil.json), 4/n/Esc deny, 5/r deny and type the
 * reason the model is told; Ctrl-C denies and calls `onInterrupt` (the chat
 * cancels the turn).
 */
export const askInTerminal = (terminal: UserTerminalShape, style: Style, cwd: string, onInterrupt?: () => void) => (request: PermissionRequest): Effect.Effect<AskAnswer> =>
  Effect.scoped(
    Effect.gen(function* () {
      // Shown as it will run: an escape sequence in it must not redraw the prompt into another command.
      const preview = clipLines(visibleText(callPreview(request, cwd)))
      const isDiff = /^(@@|---|\+\+\+)/m.test(preview)
      const rule = visibleText(rulesForAnswer(request.tool, request.subjects).map(showAllowRule).join(", "))
      yield* terminal.write(
        `\n${style.yellow("?")} ${style.bold(`Allow ${request.tool.name}${request.unconfined ? " outside the sandbox" : ""}?`)}\n` +
          (request.hook?.decision === "ask" ? `  ${style.dim(`Asked by a hook: ${visibleText(request.hook.reason ?? "no reason given")}`)}\n` : "") +
          (request.readAsked !== undefined ? `  ${style.dim(`Asked because the rule ${visibleText(request.readAsked)} asks before any file is read: this command may read any file (the places deny rules name stay hidden).`)}\n` : "") +
          `${(isDiff ? colorDiff(preview, style) : preview)
            .split("\n")
            .map((l) => `  ${l}`)
            .join("\n")}\n` +
          (request.unconfined
            ? `  ${style.red("This command runs OUTSIDE the sandbox: it may write anywhere, read your secrets and use the network.")}\n` +
              `  ${style.bold("1")} yes, once   ${style.bold("4")} no   ${style.bold("5")} no, and tell it why\n`
            : `  ${style.bold("1")} yes, once   ${style.bold("2")} always this session   ${style.bold("3")} always (save ${rule} to anvil.json)   ${style.bold("4")} no   ${style.bold("5")} no, and tell it why\n`),
      )
      const keys = yield* terminal.keys
      for (;;) {
        const key = yield* Queue.take(keys).pipe(Effect.orElseSucceed(() => undefined))
        if (key === undefined) return "deny" as const
        const k = (key.text || key.name).toLowerCase()
        let answer: AskAnswer | undefined
        if (key.ctrl && key.name === "c") {
          onInterrupt?.()
          answer = "deny"
        }
        else if (k === "1" || k === "y" || key.name === "return") answer = "once"
        else if ((k === "2" || k === "s") && !request.unconfined) answer = "session"
        else if ((k === "3" || k === "a") && !request.unconfined) answer = "always"
        else if (k === "4" || k === "n" || k === "d" || key.name === "escape") answer = "deny"
        else if (k === "5" || k === "r") {
          yield* terminal.write(`  ${style.yellow("Why? (Enter to send, Esc to deny without a reason)")}\n  › `)
          const reason = yield* readReason(keys, terminal)
          if (reason === undefined || reason.trim() === "") answer = "deny"
          else {
            yield* terminal.write(`  ${style.red("denied")} ${style.dim("(the model is told why)")}\n`)
            return { deny: `The user denied this call and said: ${reason.trim()}` } satisfies AskAnswer
          }
        }
        if (answer) {
          const label = { once: "allowed once", session: "allowed for this session", always: `allowed always (${rule} saved)`, deny: "denied" }[answer as string]
          yield* terminal.write(`  ${answer === "deny" ? style.red(label) : style.green(label)}\n`)
          return answer
        }
      }
    }),
  )

/**
 * Asks the person whether a command in the sandbox may reach `host`, which
 * sandbox.network does not list: 1/y once (this session), 3/a always (saved
 * to sandbox.network in anvil.json), 4/n/Esc no. The command waits meanwhile.
 */
export const askHostInTerminal = (terminal: UserTerminalShape, style: Style, spinner: { readonly stop: () => void }) => (host: string): Promise<"once" | "always" | "deny"> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        spinner.stop()
        const shown = visibleText(host)
        yield* terminal.write(
          `\n${style.yellow("?")} ${style.bold(`Allow the sandboxed command to connect to ${shown}?`)} ${style.dim("(not in sandbox.network)")}\n` +
            `  ${style.bold("1")} yes, this session   ${style.bold("3")} always (add ${shown} to sandbox.network in anvil.json)   ${style.bold("4")} no\n`,
        )
        const keys = yield* terminal.keys
        for (;;) {
          const key = yield* Queue.take(keys).pipe(Effect.orElseSucceed(() => undefined))
          if (key === undefined) return "deny" as const
          const k = (key.text || key.name).toLowerCase()
          const answer = k === "1" || k === "y" || key.name === "return" ? "once" : k === "3" || k === "a" ? "always" : k === "4" || k === "n" || key.name === "escape" || (key.ctrl && key.name === "c") ? "deny" : undefined
          if (answer) {
            yield* terminal.write(`  ${answer === "deny" ? style.red(`${shown} refused`) : style.green(answer === "always" ? `${shown} allowed (saved)` : `${shown} allowed for this session`)}\n`)
            return answer
          }
        }
      }),
    ),
  )

/**
 * Asks the person whether the project's `verify` command, which is not trusted, may run outside the
 * command sandbox (`why`): 1/y yes for this session, 3/a always (trusted for this project, as
 * `anvil config trust verify` does), 4/n/Esc no (auto-verification is skipped this session).
 */
export const askVerifyInTerminal = (terminal: UserTerminalShape, style: Style, spinner: { readonly stop: () => void }) => (command: string, why: string): Promise<"once" | "always" | "deny"> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        spinner.stop()
        yield* terminal.write(
          `\n${style.yellow("?")} ${style.bold("Run the project's verify command outside the sandbox?")} ${style.dim(`(${why}; set in its anvil.json, not trusted)`)}\n` +
            `  $ ${visibleText(command)}\n` +
            `  ${style.red("It runs OUTSIDE the sandbox: it may write anywhere, read your secrets and use the network.")}\n` +
            `  ${style.bold("1")} yes, this session   ${style.bold("3")} always (trust it for this project)   ${style.bold("4")} no, skip auto-verification\n`,
        )
        const keys = yield* terminal.keys
        for (;;) {
          const key = yield* Queue.take(keys).pipe(Effect.orElseSucceed(() => undefined))
          if (key === undefined) return "deny" as const
          const k = (key.text || key.name).toLowerCase()
          const answer = k === "1" || k === "y" ? "once" : k === "3" || k === "a" ? "always" : k === "4" || k === "n" || key.name === "escape" || (key.ctrl && key.name === "c") ? "deny" : undefined
          if (answer) {
            yield* terminal.write(`  ${answer === "deny" ? style.red("verify skipped") : style.green(answer === "always" ? "verify trusted for this project" : "verify allowed for this session")}\n`)
            return answer
          }
        }
      }),
    ),
  )
