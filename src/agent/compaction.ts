import { Effect } from "effect"
import { collectTurn, type LanguageModelShape, type Usage } from "../llm/model.ts"
import { filesTouched, latestTodos } from "./file-changes.ts"
import type { HistoryItem, SummaryItem } from "./history.ts"
import { AGENT_DEFAULTS } from "../config/sections/agent.ts"
import { counted } from "../protocol/plural.ts"

export interface CompactionSettings {
  /** Compact when the request would use more than this fraction of the context window. */
  readonly threshold: number
  /** The fraction of the window the kept recent items may use. */
  readonly keepFraction: number
}

export const DEFAULT_COMPACTION: CompactionSettings = {
  threshold: AGENT_DEFAULTS.compaction.threshold,
  keepFraction: AGENT_DEFAULTS.compaction.keep_fraction,
}

const itemChars = (item: HistoryItem): number =>
  item.text.length + (item.type === "assistant" ? item.tool_calls.reduce((n, c) => n + c.arguments.length + c.name.length, 0) : 0) + 16

/**
 * Where the kept (recent) part of the history starts: as many items from the
 * end as fit in `keepChars`, moved forward to a user or assistant item so no
 * tool result is separated from its call. 0 means there is nothing to compact.
 */
export const splitPoint = (items: ReadonlyArray<HistoryItem>, keepChars: number): number => {
  let size = 0
  let start = items.length
  while (start > 0 && size + itemChars(items[start - 1]!) <= keepChars) {
    size += itemChars(items[start - 1]!)
    start--
  }
  // Always keep the latest item, and never start on a tool result.
  if (start === items.length) start = items.length - 1
  while (start < items.length && items[start]!.type === "tool") start++
  if (start >= items.length) {
    // The tail is one long run of tool results: keep from the assistant call that produced them.
    start = items.length - 1
    while (start > 0 && items[start]!.type === "tool") start--
  }
  return Math.max(0, start)
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}\n[… ${counted(s.length - n, "character")} cut]` : s)

/** A plain transcript of the items to summarise, each tool result cut to a few thousand characters. */
export const transcript = (items: ReadonlyArray<HistoryItem>, budgetChars: number): string => {
  const parts = items.map((item) => {
    switch (item.type) {
      case "user":
        return `USER${item.source && item.source !== "prompt" ? ` (${item.source})` : ""}: ${clip(item.text, 4000)}`
      case "summary":
        return `EARLIER SUMMARY: ${item.text}`
      case "assistant":
        return `ASSISTANT: ${clip(item.text, 4000)}${item.tool_calls.map((c) => `\n  -> ${c.name}(${clip(c.arguments, 500)})`).join("")}`
      case "tool":
        return `TOOL RESULT ${item.name} [${item.metadata.tool_raw_envelope.status}]: ${clip(item.text, 2000)}`
    }
  })
  let text = parts.join("\n\n")
  if (text.length > budgetChars) text = `[… earliest part cut]\n${text.slice(text.length - budgetChars)}`
  return text
}

const SUMMARY_SYSTEM =
  "You compact the conversation of a coding agent so it can continue its work with less context. " +
  "Write a dense summary for the agent itself: the user's goals and constraints, decisions made, what was done " +
  "(with file paths), what was learned about the code, what failed, and what remains to do. No preamble."

/** The facts a summary must keep whatever the model writes: the todo list and the files touched. */
export const keptFacts = (items: ReadonlyArray<HistoryItem>): string => {
  const files = filesTouched(items)
  const todos = latestTodos(items)
  const lines: Array<string> = []
  if (files.changed.length > 0) lines.push(`Files changed: ${files.changed.join(", ")}`)
  if (files.read.length > 0) lines.push(`Files read: ${files.read.join(", ")}`)
  if (todos && todos.length > 0) {
    lines.push("Todo list:")
    for (const t of todos) lines.push(`- [${String(t.status ?? "pending")}] ${String(t.content ?? t.text ?? t.title ?? JSON.stringify(t))}`)
  }
  return lines.join("\n")
}

/** A summary without the model (when the summarising request fails): the prompts and the answers, cut short. */
const mechanicalSummary = (items: ReadonlyArray<HistoryItem>): string =>
  items
    .filter((i) => i.type === "user" || i.type === "summary" || (i.type === "assistant" && i.text.trim() !== ""))
    .map((i) => `${i.type === "assistant" ? "Assistant" : i.type === "summary" ? "Earlier" : "User"}: ${clip(i.text.trim(), 600)}`)
    .join("\n")

export interface Compacted {
  readonly items: ReadonlyArray<HistoryItem>
  /** How many of the old items the summary replaced. */
  readonly replaced: number
  readonly summary: SummaryItem
  /** What the summarising request cost (zero when it failed and the mechanical summary was used). */
  readonly usage: Usage
}

/**
 * Replaces the older part of the history by one summary item, written by the
 * model (falling back to a mechanical one), followed by the facts that must
 * survive: the todo list and the files touched.
 */
export const compactHistory = (
  items: ReadonlyArray<HistoryItem>,
  model: LanguageModelShape,
  settings: CompactionSettings = DEFAULT_COMPACTION,
): Effect.Effect<Compacted | undefined> =>
  Effect.gen(function* () {
    const split = splitPoint(items, model.contextWindow * 4 * settings.keepFraction)
    if (split <= 0) return undefined
    const old = items.slice(0, split)
    const written = yield* collectTurn(
      model.stream({
        system: SUMMARY_SYSTEM,
        messages: [{ role: "user", content: `Summarise this conversation:\n\n${transcript(old, model.contextWindow * 2)}` }],
        tools: [],
      }),
    ).pipe(
      Effect.map((t) => ({ text: t.text.trim(), usage: t.usage })),
      Effect.orElseSucceed(() => ({ text: "", usage: { inputTokens: 0, outputTokens: 0 } })),
    )
    const facts = keptFacts(old)
    const summary: SummaryItem = {
      type: "summary",
      text: [written.text || mechanicalSummary(old), facts].filter((s) => s !== "").join("\n\n"),
    }
    return { items: [summary, ...items.slice(split)], replaced: split, summary, usage: written.usage }
  })
