import { Schema } from "effect"

/** The optimistic-lock parameter of write, edit and multiedit. */
export const Sha256Param = Schema.String.check(Schema.isPattern(/^[0-9a-fA-F]{64}$/)).annotate({
  description:
    "CONFLICT unless the file's sha256 (hex) is this.",
})

export const DryRunParam = Schema.Boolean.annotate({
  description: "Show the change without writing.",
})

/** The folder part of a display path ("." at the top). */
export const parentOf = (display: string): string => (display.includes("/") ? display.slice(0, display.lastIndexOf("/")) : ".")
