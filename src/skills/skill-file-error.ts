import { Data } from "effect"

/** Why a skill's file cannot be returned: outside its folder, a NUL in the name, missing, a folder, too large, or binary. */
export class SkillFileError extends Data.TaggedError("SkillFileError")<{
  readonly kind: "outside" | "nul_byte" | "missing" | "directory" | "too_large" | "binary"
  readonly message: string
}> {}
