import { Context, Effect, Layer } from "effect"
import type { ToolResult } from "./definition.ts"
import { isRecord } from "../protocol/is-record.ts"

/** What is appended to a file-changing tool's answer. */
export interface AfterChangeNote {
  /** Lines added to the model-visible text (after a blank line); empty adds nothing. */
  readonly text: string
  /** Merged into the envelope's data under `key`. */
  readonly key: string
  readonly data: unknown
}

/**
 * Looks at files a tool has just changed and may add to its answer, so the
 * model sees a problem in the same turn (the LSP errors of an edited file).
 * Must not fail: a checker that cannot run says so in `text` or stays silent.
 */
export interface AfterChangeShape {
  /** `files` are root-relative paths as the tool reported them in execution_meta.file_ops. */
  readonly check: (files: ReadonlyArray<string>) => Effect.Effect<AfterChangeNote | undefined>
}

export class AfterChange extends Context.Service<AfterChange, AfterChangeShape>()("anvil/AfterChange") {
  static none = Layer.succeed(AfterChange, { check: () => Effect.succeed(undefined) })
}


/** The files a successful result wrote (execution_meta.file_ops, deletions and dry runs excluded). */
export const writtenFiles = (result: ToolResult): ReadonlyArray<string> => {
  if (result.data.dry_run === true || result.data.applied === false) return []
  const ops = result.meta?.file_ops
  const list = Array.isArray(ops) ? ops : isRecord(ops) ? [ops] : []
  return list.flatMap((op) => (isRecord(op) && typeof op.file_path === "string" && op.operation !== "delete" ? [op.file_path] : []))
}

/** `result` with a note appended. */
export const withNote = (result: ToolResult, note: AfterChangeNote | undefined): ToolResult =>
  note === undefined
    ? result
    : {
        ...result,
        data: { ...result.data, [note.key]: note.data },
        text: note.text === "" ? result.text : `${result.text}\n\n${note.text}`,
      }
