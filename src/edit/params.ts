import { Schema } from "effect"

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
