import { Effect } from "effect"
import { hint } from "../protocol/hint.ts"
import type { SpillStoreShape } from "../output/spill-store.ts"
import type { ToolResult } from "./definition.ts"

/**
 * Saves a result's `full` text (what its text shows only part of) to a spill
 * file and says where it is: a line at the end of the text, `data.full_output_path`
 * and a Read hint. When it cannot be saved, the text says so instead.
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
    const files = yield* store
      .spill(title, { data: result.data, text: full.text }, full.text)
      .pipe(Effect.orElseSucceed(() => undefined))
    if (files?.text === undefined) return { ...rest, text: `${result.text.trimEnd()}\n\n(The complete list, ${full.what}, could not be saved.)` }
    const where = display(files.text)
    return {
      ...rest,
      status: "partial",
      data: { ...result.data, full_output_path: where },
      text: `${result.text.trimEnd()}\n\nAll ${full.what}: ${where}`,
      hints: [hint("Read", "high", { path: where, offset: full.shownLines ?? 0, limit: 200 }), ...(result.hints ?? [])],
    }
  })
