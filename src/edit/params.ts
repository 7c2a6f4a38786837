import { Schema } from "effect"

/**
 * The optimistic-lock parameter of write, edit and multiedit. A success answers
 * with the first 12 hex digits of the new sha256, so that short hash (or any
 * longer prefix, up to the full 64 digits) is what the model passes back.
 */
export const Sha256Param = Schema.String.check(Schema.isPattern(/^[0-9a-fA-F]{12,64}$/)).annotate({
  description: "CONFLICT unless the file's sha256 starts with this (the 12 digits answers show).",
})

export const DryRunParam = Schema.Boolean.annotate({
  description: "Preview only.",
})

/** The folder part of a display path ("." at the top). */
export const parentOf = (display: string): string => (display.includes("/") ? display.slice(0, display.lastIndexOf("/")) : ".")
