import { Schema } from "effect"

/** Files larger than this are not loaded for changing (tools.<name>.max_file_bytes). */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
/** Diff lines kept in a result (tools.<name>.max_diff_lines); the counts stay exact. */
export const DEFAULT_MAX_DIFF_LINES = 400

/** The optimistic-lock parameter of write, edit and multiedit. */
export const Sha256Param = Schema.String.check(Schema.isPattern(/^[0-9a-fA-F]{64}$/)).annotate({
  description:
    "Refuse the change (CONFLICT) unless the file's current sha256 (hex) is this. For scripted use; inside an agent session a prior Read is enough.",
})

export const DryRunParam = Schema.Boolean.annotate({
  description: "Compute and show the diff without writing (status partial, applied false).",
})

/** The folder part of a display path ("." at the top). */
export const parentOf = (display: string): string => (display.includes("/") ? display.slice(0, display.lastIndexOf("/")) : ".")
