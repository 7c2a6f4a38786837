import { Data } from "effect"

/** The session's stored todo list is not a todo list (hand-edited or cut short). */
export class TodoFileDamaged extends Data.TaggedError("TodoFileDamaged")<{
  /** How results name the file. */
  readonly display: string
}> {}
