import { Effect } from "effect"
import { hint } from "../protocol/hint.ts"
import { asLines, type SpillStoreShape } from "../output/spill-store.ts"
import type { ToolResult } from "./definition.ts"

/** Lines of a text as Read counts them (a final newline ends the last line, it starts no new one). */
const lineCount = (text: string): number => {
  if (text === "") return 0
  let n = 1
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++
  return text.endsWith("\n") ? n - 1 : n
}

/** Most lines one Read returns by default: a hint never asks for more. */
const READ_PAGE = 200

/**
 * The Reads that return what the text left out: the lines after the shown ones
 * and (a later page) the lines before them; each at most one Read page.
 */
const restHints = (path: string, full: NonNullable<ToolResult["full"]>) => {
  const total = lineCount(full.text)
  const after = full.shownLines ?? 0
  const before = full.shownFrom ?? 0
  return [
    ...(after < total || before === 0 ? [hint("Read", "high", { path, offset: after, limit: Math.max(1, Math.min(READ_PAGE, total - after)) })] : []),
    ...(before > 0 ? [hint("Read", after < total ? "low" : "high", { path, offset: 0, limit: Math.min(READ_PAGE, before) })] : []),
  ]
}

/**
 * Saves a result's `full` text (what its text shows only part of) to a spill
 * file and says where it is: a line at the end of the text, `data.full_output_path`
 * and a Read hint for what was left out. The spill JSON holds `full.data` over
 * the result's data (a page's own fields should be given there page-neutral:
 * a later page reuses the file). When it cannot be saved, the text says so instead.
 */
export const withFullOutput = (
  result: ToolResult,
  title: string,
  store: SpillStoreShape,
  display: (absolute: string) => string,
): Effect.Effect<ToolResult> =>
  Effect.gen(function* () {
    const full = result.full
    if (full === undefined) return result
    const { full: _, ...rest } = result
    // Keyed by what is saved: the pages of one listing (or a call repeated) share one file.
    const key = new Bun.CryptoHasher("sha256").update(full.text).update(JSON.stringify(full.data ?? null)).digest("hex").slice(0, 16)
    const files = yield* store
      .spill(title, { data: full.data ? { ...result.data, ...full.data } : result.data, text: full.text }, full.document ? full.text : asLines(full.text), key)
      .pipe(Effect.orElseSucceed(() => undefined))
    const line = files?.text === undefined ? `(All ${full.what} could not be saved.)` : `All ${full.what}: ${display(files.text)}`
    const text = full.lead ? `${line}\n\n${result.text}` : `${result.text.trimEnd()}\n\n${line}`
    if (files?.text === undefined) return { ...rest, text }
    const where = display(files.text)
    return {
      ...rest,
      ...(full.keepStatus ? {} : { status: "partial" as const }),
      data: { ...result.data, full_output_path: where },
      text,
      hints: [...restHints(where, full), ...(result.hints ?? [])],
    }
  })
