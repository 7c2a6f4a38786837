import type { HistoryItem, ToolItem } from "./history.ts"
import { isRecord } from "../protocol/is-record.ts"

/** The tools whose successful calls change files. */
const WRITERS = new Set(["write", "edit", "multiedit", "patch"])
/** The tools whose calls show a file to the model. */
const READERS = new Set(["read"])


const collect = (value: unknown, into: Set<string>) => {
  if (typeof value === "string" && value !== "") into.add(value)
  else if (Array.isArray(value)) for (const v of value) collect(isRecord(v) ? (v.path ?? v.file ?? v.file_path) : v, into)
}

/** Paths named by a diff's `+++ b/x` and `--- a/x` lines (patch tool input). */
const patchPaths = (patch: unknown, into: Set<string>) => {
  if (typeof patch !== "string") return
  for (const m of patch.matchAll(/^(?:\+\+\+|---) (?:[ab]\/)?(\S+)/gm)) if (m[1] && m[1] !== "/dev/null") into.add(m[1])
  for (const m of patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)) if (m[1]) into.add(m[1].trim())
}

/**
 * The files a tool item touched, read from what the tools report: execution_meta
 * `file_ops`, the envelope's context.path_resolved, data.path/files/applied, and
 * failing those the call's own parameters. Root-relative where the tool said so.
 */
export const pathsOf = (item: ToolItem): ReadonlyArray<string> => {
  const out = new Set<string>()
  const { tool_raw_envelope: env, tool_execution_meta: meta } = item.metadata
  const ops = meta.file_ops
  if (isRecord(ops)) collect(ops.file_path ?? ops.path, out)
  else if (Array.isArray(ops)) collect(ops, out)
  collect(env.context.path_resolved, out)
  collect(env.data.path, out)
  collect(env.data.files, out)
  if (Array.isArray(env.data.applied)) collect(env.data.applied, out)
  if (out.size === 0) {
    const params = env.context.params_input
    if (isRecord(params)) {
      collect(params.path ?? params.file_path, out)
      patchPaths(params.patch, out)
    }
  }
  return [...out]
}

const toolName = (item: ToolItem) => item.name.toLowerCase()

/** The files a tool item changed: a writer (by name, or any tool reporting execution_meta file_ops) that did not fail and was not a dry run. */
export const changedFiles = (item: ToolItem): ReadonlyArray<string> => {
  const ops = item.metadata.tool_execution_meta.file_ops
  if (!WRITERS.has(toolName(item)) && !isRecord(ops) && !Array.isArray(ops)) return []
  const env = item.metadata.tool_raw_envelope
  if (env.status === "error" || env.data.dry_run === true) return []
  return pathsOf(item)
}

/** The files read and changed in a stretch of history (compaction keeps these). */
export const filesTouched = (items: ReadonlyArray<HistoryItem>): { readonly read: ReadonlyArray<string>; readonly changed: ReadonlyArray<string> } => {
  const read = new Set<string>()
  const changed = new Set<string>()
  for (const item of items) {
    if (item.type !== "tool") continue
    for (const p of changedFiles(item)) changed.add(p)
    if (READERS.has(toolName(item)) && item.metadata.tool_raw_envelope.status !== "error") for (const p of pathsOf(item)) read.add(p)
  }
  for (const p of changed) read.delete(p)
  return { read: [...read], changed: [...changed] }
}

const DOC_SUFFIXES = [".md", ".mdx", ".txt", ".rst", ".adoc"]

/** A documentation change (docs/ folder, or .md .mdx .txt .rst .adoc) skips auto-verification. */
export const isDocPath = (path: string): boolean => {
  const p = path.replace(/\\/g, "/").replace(/^\.\//, "").toLowerCase()
  return p === "docs" || p.startsWith("docs/") || p.includes("/docs/") || DOC_SUFFIXES.some((s) => p.endsWith(s))
}

/** The latest todo list in a stretch of history (todowrite/todoread results carry data.todos). */
export const latestTodos = (items: ReadonlyArray<HistoryItem>): ReadonlyArray<Record<string, unknown>> | undefined => {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!
    if (item.type !== "tool") continue
    const todos = item.metadata.tool_raw_envelope.data.todos
    if (Array.isArray(todos) && item.metadata.tool_raw_envelope.status !== "error") return todos.filter(isRecord)
  }
  return undefined
}
