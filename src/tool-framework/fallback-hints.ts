import { hint, shellQuote, type RetrievalHint } from "../protocol/hint.ts"
import { isRecord } from "../protocol/is-record.ts"
import type { ToolError } from "../protocol/tool-error.ts"
import { PLACEHOLDER, WHOLE } from "./placeholder.ts"
import { echo, standIn } from "./list-repair.ts"

/** The folder a root-relative path is in ("." at the top). */
const parent = (path: string): string => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) || "/" : ".")

/** A parameter the tool does not take (an unknown field inside an item is a fault of that parameter). */
const isUnknownParameter = (f: { readonly field: string; readonly message: string }): boolean => f.message.startsWith("unknown parameter")

/**
 * The next step for an error whose tool named none, so that every error's text ends with one (the
 * envelope's rules ask it of every error): the parameters at fault asked for again; a call that only
 * named parameters the tool does not take, the same call without them; parameters that were no JSON object,
 * the call written as one with its required parameters; a file the system refused or
 * that is binary, a look at it. Anything else keeps no hint rather than a guess (a path not there names its own:
 * which folder to look at depends on which of its components is a file).
 */
export const fallbackHints = (
  title: string,
  parameters: ReadonlyArray<string> | undefined,
  given: unknown,
  error: ToolError,
  /** The stand-in for a parameter's value (or a field's inside it) given as `value`, shaped as the parameter (a list as a list). */
  placeholder: (field: string, value?: unknown) => unknown = () => PLACEHOLDER,
): ReadonlyArray<RetrievalHint> => {
  const fields = error.fieldErrors ?? []
  if (parameters !== undefined && fields.some((f) => f.field === WHOLE)) {
    // Parameters that were no JSON object at all: the whole call, written as one, with what it requires.
    const whole = placeholder(WHOLE)
    return [hint(title, "high", isRecord(whole) ? whole : {})]
  }
  if (parameters !== undefined && fields.length > 0) {
    const atFault = [...new Set(fields.filter((f) => !isUnknownParameter(f)).map((f) => f.field.split(".")[0]!))].filter((f) => parameters.includes(f))
    if (atFault.length > 0) return [hint(title, "high", Object.fromEntries(atFault.map((f) => [f, standIn(f, fields, given, placeholder)])))]
    if (fields.every(isUnknownParameter) && isRecord(given)) {
      const kept = Object.entries(given).filter(([k]) => parameters.includes(k))
      return [hint(title, "high", Object.fromEntries(kept.map(([k, v]) => [k, echo(v)])))]
    }
  }
  const path = error.context?.["path_resolved"]
  if (typeof path === "string" && path !== "") {
    // The folder too: a file that could not be made does not exist, and its folder is what refused.
    const folder = path.includes("/") ? [parent(path)] : []
    if (error.code === "PERMISSION_DENIED") return [hint("Bash", "medium", { command: `ls -ld ${[path, ...folder].map(shellQuote).join(" ")}` })]
    if (error.code === "BINARY_FILE") return [hint("Bash", "low", { command: `file ${shellQuote(path)}` })]
  }
  return []
}

/**
 * The same call under the name of `title`'s tool, for a name close to it (`raed`): the parameters that tool takes,
 * as given, else the ones it requires.
 */
export const renamedCallHint = (
  title: string,
  parameters: ReadonlyArray<string>,
  given: unknown,
  required: Record<string, unknown>,
): RetrievalHint => {
  const kept = isRecord(given) ? Object.entries(given).filter(([k]) => parameters.includes(k)) : []
  return hint(title, "high", kept.length > 0 ? Object.fromEntries(kept.map(([k, v]) => [k, echo(v)])) : required)
}

/**
 * The step in words for an error that no call would help and that names no step of its own: a refusal only the
 * user can lift, a cancelled call, a fault of anvil's rather than of the call.
 */
export const fallbackStep = (code: string): string | undefined => STEPS[code]

const STEPS: Readonly<Record<string, string>> = {
  PERMISSION_DENIED: "do not repeat this call unchanged; go on without it, or another way. Only the user can allow it, as said above.",
  CANCELLED: "nothing more of this call runs; wait for the user's next instruction.",
  INTERNAL_ERROR: "this is a fault in anvil, or in the plugin or server behind the tool, not in the call: go on another way, and tell the user.",
}
