import { isRecord } from "../protocol/is-record.ts"
import { PLACEHOLDER } from "./placeholder.ts"

/** Up to this many characters a value given is shown again; anything longer is named, not repeated. */
const ECHO_MAX = 120

/** What a hint shows in place of a value given too long to repeat. */
export const AS_BEFORE = "<as before>"

/**
 * A value shown again in a hint as it was given; anything longer is named, not repeated. A short list or object
 * stays one (`paths=["a.txt"]`): named as a string, it would lead the model to send a string.
 */
export const echo = (value: unknown): unknown => {
  if (typeof value === "number" || typeof value === "boolean") return value
  if (typeof value === "string") return value.length <= ECHO_MAX && !value.includes("\n") ? value : AS_BEFORE
  const json = typeof value === "object" && value !== null ? JSON.stringify(value) : undefined
  return json !== undefined && json.length <= ECHO_MAX && !json.includes("\\n") ? value : AS_BEFORE
}

/** The faults of one list item: the fields to ask for again, and the fields it does not take (left out). */
export interface ItemFault {
  readonly ask: ReadonlySet<string>
  readonly drop: ReadonlySet<string>
}

/** The faults of one list parameter by item: its fields at fault, or "whole" when the item itself is. */
export type ItemFaults = ReadonlyMap<number, ItemFault | "whole">

/**
 * The faults that field errors name inside list `param` (`edits.1.new_string`, `todos.0.status`, `paths.2`; an
 * `unknown field` one names a field to leave out), by item; empty when none names an item of it.
 */
export const itemFaults = (
  param: string,
  fields: ReadonlyArray<{ readonly field: string; readonly message?: string }>,
  length: number,
): ItemFaults => {
  const faults = new Map<number, { ask: Set<string>; drop: Set<string> } | "whole">()
  for (const { field, message } of fields) {
    const [head, index, sub] = field.split(".")
    const i = Number(index)
    if (head !== param || index === undefined || !/^\d+$/.test(index) || i >= length) continue
    const known = faults.get(i)
    if (sub === undefined || known === "whole") {
      faults.set(i, "whole")
      continue
    }
    const fault = known ?? { ask: new Set<string>(), drop: new Set<string>() }
    ;(message?.startsWith("unknown ") ? fault.drop : fault.ask).add(sub)
    faults.set(i, fault)
  }
  return faults
}

/** One spelling of a field name for telling its aliases apart: `newString`, `new_str` and `new_string` agree. */
const squeezed = (key: string): string => key.replace(/_/g, "").toLowerCase()
const sameField = (a: string, b: string): boolean => {
  const x = squeezed(a)
  const y = squeezed(b)
  return x.startsWith(y) || y.startsWith(x)
}

/** An item of a list shown again: its fields one by one, so one long field does not hide the rest. */
const echoItem = (item: unknown): unknown =>
  isRecord(item) ? Object.fromEntries(Object.entries(item).map(([k, v]) => [k, echo(v)])) : echo(item)

/**
 * A list parameter given again with only its faulty items mended: every other item as it was (long values named
 * `"<as before>"`), a faulty item's faulty fields as the stand-in shapes them (`"pending"` for a status, else
 * `"<correct_value>"`; an alias spelling of that field dropped). Asking for a list of one stand-in item instead
 * would lead the model to send that list, and lose every other item: a todo list of one task, a multiedit of one
 * edit.
 */
export const repairedList = (
  items: ReadonlyArray<unknown>,
  faults: ItemFaults,
  shapedItem: unknown,
  /** The stand-in for field `f` of item `i` given as `value`, typed as the schema wants it (`replace_all` true). */
  fieldStandIn?: (i: number, f: string, value: unknown) => unknown,
): ReadonlyArray<unknown> =>
  items.map((item, i) => {
    const fault = faults.get(i)
    if (fault === undefined) return echoItem(item)
    if (fault === "whole" || !isRecord(item)) return shapedItem
    const ask = [...fault.ask]
    const kept = Object.entries(item).filter(([k]) => !fault.drop.has(k) && !ask.some((f) => k !== f && sameField(k, f)))
    const value = (f: string): unknown =>
      fieldStandIn ? fieldStandIn(i, f, item[f]) : isRecord(shapedItem) && f in shapedItem ? shapedItem[f] : PLACEHOLDER
    return { ...Object.fromEntries(kept.map(([k, v]) => [k, echo(v)])), ...Object.fromEntries(ask.map((f) => [f, value(f)])) }
  })

/**
 * What a parameter at fault is asked for as: a list whose faults are in some of its items, the list as given with
 * those mended (repairedList); anything else, the stand-in shaped as the parameter.
 */
export const standIn = (
  param: string,
  fields: ReadonlyArray<{ readonly field: string; readonly message?: string }>,
  given: unknown,
  /** The stand-in for a parameter, or for a field inside one (`edits.0.replace_all`) given as `value`. */
  placeholder: (field: string, value?: unknown) => unknown,
): unknown => {
  const items = isRecord(given) ? given[param] : undefined
  const shaped = placeholder(param, items)
  if (!Array.isArray(items) || !Array.isArray(shaped)) return shaped
  const faults = itemFaults(param, fields, items.length)
  return faults.size === 0 ? shaped : repairedList(items, faults, shaped[0], (i, f, value) => placeholder(`${param}.${i}.${f}`, value))
}

/**
 * The first value of a call that is a hint's stand-in copied as it stood (`"<as before>"`, `"<correct_value>"`), with
 * where it is (`edits.0.new_string`): a model that copies a next step whole would otherwise write the stand-in into
 * a file or a plan in place of the text it stood for.
 */
export const copiedStandIn = (value: unknown, at: ReadonlyArray<string> = [], depth = 0): { readonly field: string; readonly value: string } | undefined => {
  if (value === AS_BEFORE || value === PLACEHOLDER) return { field: at.join(".") || "(root)", value }
  if (depth > 4 || typeof value !== "object" || value === null) return undefined
  for (const [k, v] of Object.entries(value)) {
    const found = copiedStandIn(v, [...at, k], depth + 1)
    if (found) return found
  }
  return undefined
}
