import type { ModelToolCall } from "../llm/model.ts"
import { REACT_STOP } from "./react.ts"

// How the loop reads a model's reply and a call's refusal: arguments as parameters, the ReAct text before its
// observation, calls in groups that may run together, a call's identity for the repeat guard, the rules a refusal names.

/** JSON with keys sorted: two calls with the same parameters in another order are the same call. */
export const stableJson = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(stableJson).join(",")}]`
    : typeof v === "object" && v !== null
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : JSON.stringify(v) ?? "null"

/** The model's argument text as parameters: JSON when it parses, the text otherwise (the pipeline reports INVALID_PARAM). */
export const parseArguments = (args: string): unknown => {
  if (args.trim() === "") return {}
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

/**
 * The calls with ids unique in the conversation (`taken`, which gains them): some OpenAI-compatible servers give two
 * calls of one reply the same id, or reuse an earlier reply's, and the APIs that pair each result with its call by id
 * reject the next request then. A taken (or empty) id becomes the first free `<id>_<n>` from 2: deterministic, and no
 * call is dropped.
 */
export const uniqueCallIds = (calls: ReadonlyArray<ModelToolCall>, taken: Set<string>): Array<ModelToolCall> =>
  calls.map((call) => {
    const base = call.id === "" ? "call" : call.id
    let id = call.id
    for (let n = 2; id === "" || taken.has(id); n++) id = `${base}_${n}`
    taken.add(id)
    return id === call.id ? call : { ...call, id }
  })

/** ReAct: the reply up to the first stop sequence (the model may go on to invent the observation). */
export const cutAtObservation = (text: string): string => {
  let end = text.length
  for (const stop of REACT_STOP) {
    const i = text.indexOf(stop)
    if (i >= 0 && i < end) end = i
  }
  return text.slice(0, end).trimEnd()
}

/** Consecutive read-only calls form one concurrent group; every other call runs alone, in order. */
export const groupCalls = <C>(calls: ReadonlyArray<C>, readOnly: (c: C) => boolean): Array<Array<C>> => {
  const groups: Array<Array<C>> = []
  for (const call of calls) {
    const last = groups[groups.length - 1]
    if (readOnly(call) && last && readOnly(last[0]!)) last.push(call)
    else groups.push([call])
  }
  return groups
}

/** The deny rule a refusal names (the pipeline's `context.denied_by`), if it is one. */
export const deniedBy = (value: unknown): { readonly rule: string; readonly where: string } | undefined =>
  typeof value === "object" && value !== null && typeof (value as { rule?: unknown }).rule === "string" && typeof (value as { where?: unknown }).where === "string"
    ? (value as { rule: string; where: string })
    : undefined

/** The plugin whose tool.before hook refused a call (the pipeline's `context.blocked_by`), if one did. */
export const blockedBy = (value: unknown): string | undefined =>
  typeof value === "object" && value !== null && typeof (value as { plugin?: unknown }).plugin === "string" ? (value as { plugin: string }).plugin : undefined

/** The untrusted project rule a refusal names (the pipeline's `context.untrusted_rule`), if it is one. */
export const untrustedRule = (value: unknown): { readonly rule: string; readonly next_step: string } | undefined =>
  typeof value === "object" && value !== null && typeof (value as { rule?: unknown }).rule === "string" && typeof (value as { next_step?: unknown }).next_step === "string"
    ? (value as { rule: string; next_step: string })
    : undefined

/** A plugin hook that ended the turn (the pipeline's `context.hook_stopped`: Claude Code's `continue: false`), if one did. */
export const hookStopped = (value: unknown): { readonly plugin: string; readonly reason: string } | undefined =>
  typeof value === "object" && value !== null && typeof (value as { plugin?: unknown }).plugin === "string" && typeof (value as { reason?: unknown }).reason === "string"
    ? { plugin: (value as { plugin: string }).plugin, reason: (value as { reason: string }).reason }
    : undefined
