import { Effect } from "effect"
import type { Envelope } from "../protocol/envelope.ts"
import { hint, renderHints, type RetrievalHint } from "../protocol/hint.ts"
import type { OutputSettingsShape } from "./output-settings.ts"
import { asLines, type SpillStoreShape } from "./spill-store.ts"
import { truncateText } from "./truncate.ts"

export interface TruncationOutcome {
  readonly envelope: Envelope
  /** Present when the output was cut: the hints the cut added (the text ends with these, then the tool's own). */
  readonly hints?: ReadonlyArray<RetrievalHint>
  readonly kept?: { readonly lines: number; readonly total: number }
}

/** A data text shorter than this is left where it is even when the text repeats it. */
const SHARED_MIN = 1024

/**
 * The envelope as its spill JSON holds it: a long text of `data` (git_diff's and fetch's `content`) that the text
 * repeats whole is kept once, in `data`; the text names it in its place (`[data.content: 97,000 characters]`).
 * The text itself is saved whole beside the JSON, line by line.
 */
export const spilledEnvelope = (envelope: Envelope): Envelope => {
  let text = envelope.text
  for (const [key, value] of Object.entries(envelope.data)) {
    if (typeof value !== "string" || value.length < SHARED_MIN) continue
    const at = text.indexOf(value)
    if (at === -1) continue
    text = `${text.slice(0, at)}[data.${key}: ${value.length.toLocaleString("en-US")} characters]${text.slice(at + value.length)}`
  }
  return text === envelope.text ? envelope : { ...envelope, text }
}

/**
 * The framework-level truncation, applied to what the model would
 * read (the envelope's text). Within budget, or with context.truncation_skip,
 * the envelope passes unchanged. Otherwise the whole raw envelope is spilled as
 * JSON and replaced by the truncation envelope: status partial (error stays
 * error), data {truncated, truncation, preview}, the same stats and context.
 */
export const truncateObservation = (input: {
  readonly envelope: Envelope
  readonly toolTitle: string
  readonly settings: OutputSettingsShape
  readonly store: SpillStoreShape
  /** Display form of a path (root-relative). */
  readonly display: (absolute: string) => string
  /** Whether the agent can hand the spilled file to a subagent. */
  readonly taskToolAvailable: boolean
  /**
   * The tool's own hints. They end the original text, which the cut may leave
   * out; they can lead to what even the saved output lacks (fetch: the rest of
   * a page past its size limit), so the cut text repeats them after its own.
   */
  readonly toolHints?: ReadonlyArray<RetrievalHint>
}): Effect.Effect<TruncationOutcome> =>
  Effect.gen(function* () {
    const { envelope, settings } = input
    if (envelope.context.truncation_skip === true) return { envelope }
    const cut = truncateText(envelope.text, settings)
    if (!cut.truncated) return { envelope }

    const files = yield* input.store
      .spill(input.toolTitle, spilledEnvelope(envelope), asLines(envelope.text))
      .pipe(Effect.orElseSucceed(() => undefined))
    const spilled = files ? input.display(files.json) : undefined
    // Paging and searching go to the plain-text copy: in the JSON the text is one long line.
    const readable = files?.text ? input.display(files.text) : spilled
    const direction = settings.direction
    const where = spilled
      ? `The full output was saved to ${spilled}${readable !== spilled ? ` (its text, line by line: ${readable})` : ""}.`
      : "The full output could not be saved to disk."
    const which = direction === "head" ? "first" : direction === "tail" ? "last" : "first and last"
    // Kept from the head, a line that could not be shown whole ends the part shown (resumeAt names it).
    const lastCut = direction === "head" && cut.resumeAt < cut.keptLines ? ", the last of them cut" : ""
    const notice =
      `⚠️ Output too large: showing the ${which} ${cut.keptLines} of ${cut.originalLines} lines${lastCut} ` +
      `(${cut.keptBytes} of ${cut.originalBytes} bytes). ${where}`
    const hints: Array<RetrievalHint> = []
    if (spilled) {
      if (input.taskToolAvailable) {
        hints.push(
          hint("Task", "high", {
            agent: "explore",
            objective: `Read ${readable} (the full output of ${input.toolTitle}) and report what matters for the current goal.`,
          }),
        )
      }
      hints.push(
        hint("Read", input.taskToolAvailable ? "medium" : "high", {
          path: readable,
          offset: cut.resumeAt,
          limit: 200,
        }),
        hint("Grep", "medium", { pattern: "<keyword>", path: readable }),
      )
    }
    const advice = input.taskToolAvailable
      ? "Use Task to have a subagent process the full output file, or Read it with offset/limit or Grep it."
      : "Use Read with offset/limit to page through the full output file, or Grep to search it."
    const tailFirst = direction === "tail"
    const rendered = new Set(hints.map((h) => JSON.stringify(h)))
    const shownHints = [...hints, ...(input.toolHints ?? []).filter((h) => !rendered.has(JSON.stringify(h)))]
    const text = [tailFirst ? notice : cut.text, tailFirst ? cut.text : notice, advice, renderHints(shownHints)]
      .filter((s) => s !== "")
      .join("\n\n")

    const truncated: Envelope = {
      status: envelope.status === "error" ? "error" : "partial",
      data: {
        truncated: true,
        truncation: {
          direction,
          max_lines: settings.maxLines,
          max_bytes: settings.maxBytes,
          original_lines: cut.originalLines,
          original_bytes: cut.originalBytes,
          kept_lines: cut.keptLines,
          kept_bytes: cut.keptBytes,
          full_output_path: spilled ?? null,
          full_output_text_path: readable ?? null,
        },
        preview: cut.text,
      },
      text,
      ...(envelope.error ? { error: envelope.error } : {}),
      stats: envelope.stats,
      context: envelope.context,
    }
    return { envelope: truncated, hints, kept: { lines: cut.keptLines, total: cut.originalLines } }
  })
