import { shownValue } from "../protocol/shown-value.ts"
import { readFileSync } from "node:fs"
import { isRecord } from "../protocol/is-record.ts"

/**
 * Claude Code's `--settings` (JSON text, or a file's path), which the Agent SDK passes for its `sandbox` and
 * `settings` options. anvil reads one thing of it: whether sandboxed Bash commands run without asking
 * (`sandbox.enabled` and `sandbox.autoAllowBashIfSandboxed`, both true), as Claude Code decides it. Its own
 * sandbox settings (anvil.json) hold for everything else.
 */
export interface SettingsFlag {
  /** Confined bash calls need no approval (anvil's sandbox.auto_allow). */
  readonly autoAllowSandboxed: boolean
  /** Settings given that anvil does not act on (`permissions`, `env`, `sandbox.network`, …), as dotted names. */
  readonly unread: ReadonlyArray<string>
  readonly errors: ReadonlyArray<string>
}

/** The sandbox keys read here; `failIfUnavailable` needs nothing (anvil's sandbox.require decides). */
const READ_SANDBOX_KEYS = new Set(["enabled", "autoAllowBashIfSandboxed", "failIfUnavailable"])

/** Reads every `--settings` value given; later values win, as later settings layers do. */
export const readSettingsFlag = (values: ReadonlyArray<string>): SettingsFlag => {
  let enabled = false
  let autoAllow = false
  const unread = new Set<string>()
  const errors: Array<string> = []
  for (const value of values) {
    let text = value
    if (!value.trim().startsWith("{")) {
      try {
        text = readFileSync(value, "utf8")
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        // A folder is the one mistake whose code (EISDIR) does not say what to do.
        errors.push(`--settings: cannot read ${value} (${code === "EISDIR" ? "it is a folder: name the JSON file in it" : (code ?? (e as Error).message)})`)
        continue
      }
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (e) {
      errors.push(`--settings is not valid JSON: ${(e as Error).message}`)
      continue
    }
    if (!isRecord(parsed)) {
      errors.push(`--settings needs a JSON object, not ${shownValue(text)}`)
      continue
    }
    for (const [key, setting] of Object.entries(parsed)) {
      if (key !== "sandbox" || !isRecord(setting)) {
        unread.add(key)
        continue
      }
      if (typeof setting.enabled === "boolean") enabled = setting.enabled
      if (typeof setting.autoAllowBashIfSandboxed === "boolean") autoAllow = setting.autoAllowBashIfSandboxed
      for (const inner of Object.keys(setting)) if (!READ_SANDBOX_KEYS.has(inner)) unread.add(`sandbox.${inner}`)
    }
  }
  return { autoAllowSandboxed: enabled && autoAllow, unread: [...unread], errors }
}
