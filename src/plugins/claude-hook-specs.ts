import { Predicate } from "effect"
import { compileMatcher } from "./hook-matcher.ts"
import type { HookSource } from "./claude-components.ts"

/**
 * The command hooks a Claude Code plugin's hooks files declare, checked field
 * by field as Claude Code's hooks reference writes them:
 * `{Event: [{matcher, hooks: [{type: "command", command, timeout}]}]}`. A wrong
 * field costs only its own part — an event whose value is not a list, a group
 * without a `hooks` list, a hook without a command — and is named with its
 * file, line and column and what to write instead; the rest of the file and the
 * plugin's other parts load.
 */

export type HookEvent = "PreToolUse" | "PostToolUse" | "SessionStart"
const RUN: ReadonlyArray<string> = ["PreToolUse", "PostToolUse", "SessionStart"]

/** Claude Code's other hook events: anvil lists them as not run, rather than as mistakes. */
const KNOWN = [
  "PostToolUseFailure",
  "PermissionRequest",
  "Notification",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "SessionEnd",
]

export interface CommandSpec {
  readonly matcher: string
  /** The matcher compiled ("" and "*" select every name; an invalid one none, and the plugin's report says so). */
  readonly selects: (name: string) => boolean
  readonly command: string
  readonly timeoutMs: number
  /** `once: true`: run until it first succeeds (acted on only for a skill's or an agent's front matter, as in Claude Code). */
  readonly once?: boolean
}

const GROUP_SHAPE = '{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}'

export const readHookSpecs = (
  sources: ReadonlyArray<HookSource>,
  expand: (command: string) => string,
  warnings: Array<string>,
  unsupported: Array<string>,
): Record<HookEvent, Array<CommandSpec>> => {
  const specs: Record<HookEvent, Array<CommandSpec>> = { PreToolUse: [], PostToolUse: [], SessionStart: [] }
  for (const { events, at } of sources) {
    if (!Predicate.isObject(events)) {
      warnings.push(`${at([])} must be an object of hook events (${JSON.stringify({ PreToolUse: ["…"] })}), so none of its hooks run`)
      continue
    }
    for (const [event, groups] of Object.entries(events)) {
      if (event === "description") continue
      if (!RUN.includes(event)) {
        if (KNOWN.includes(event)) unsupported.push(`${event} hooks`)
        else {
          const like = [...RUN, ...KNOWN].find((k) => k.toLowerCase() === event.toLowerCase().trim())
          warnings.push(`${at([event])} is not a hook event of Claude Code${like ? ` (did you mean ${like}?)` : ""}, so its hooks never run`)
        }
        continue
      }
      if (!Array.isArray(groups)) {
        warnings.push(`${at([event])} must be a list of matcher groups ([${GROUP_SHAPE}]), so its ${event} hooks do not run`)
        continue
      }
      groups.forEach((group, g) => {
        if (!Predicate.isObject(group) || !Array.isArray(group.hooks)) {
          warnings.push(`${at([event, g])} must be a matcher group with a "hooks" list (${GROUP_SHAPE}), so it does not run`)
          return
        }
        if (group.matcher !== undefined && typeof group.matcher !== "string") {
          warnings.push(`${at([event, g, "matcher"])} must be a text (a tool name or a regular expression such as "Edit|Write"), so this group does not run`)
          return
        }
        const matcher = typeof group.matcher === "string" ? group.matcher : ""
        const list: ReadonlyArray<unknown> = group.hooks
        const compiled = compileMatcher(matcher)
        if ("problem" in compiled && list.length > 0) {
          warnings.push(
            `${at([event, g, "matcher"])}: the ${event} matcher ${JSON.stringify(matcher)} is not a valid regular expression (${compiled.problem}), so its ${list.length === 1 ? "hook never runs" : `${list.length} hooks never run`}; fix the matcher`,
          )
        }
        const selects = "selects" in compiled ? compiled.selects : () => false
        list.forEach((hook, h) => {
          const place = [event, g, "hooks", h]
          if (Predicate.isObject(hook) && typeof hook.type === "string" && hook.type !== "command") {
            unsupported.push(`${event} hook of type ${JSON.stringify(hook.type)}`)
            return
          }
          if (!Predicate.isObject(hook) || hook.type !== "command" || typeof hook.command !== "string" || hook.command.trim() === "") {
            warnings.push(`${at(place)} must be {"type": "command", "command": "…"} with the command to run, so it does not run`)
            return
          }
          const timeoutOk = hook.timeout === undefined || (typeof hook.timeout === "number" && hook.timeout > 0)
          if (!timeoutOk) warnings.push(`${at([...place, "timeout"])} must be a number of seconds above 0; the default, 60, applies`)
          const seconds = typeof hook.timeout === "number" && hook.timeout > 0 ? hook.timeout : 60
          specs[event as HookEvent].push({ matcher, selects, command: expand(hook.command), timeoutMs: seconds * 1000, ...(hook.once === true ? { once: true } : {}) })
        })
      })
    }
  }
  return specs
}
