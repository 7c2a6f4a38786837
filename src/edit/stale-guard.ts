import { Effect } from "effect"
import { hint } from "../protocol/hint.ts"
import type { FileLedgerShape, FileStamp } from "../workspace/file-ledger.ts"
import { EditError } from "./edit-error.ts"

/** How the file looks on disk now. */
export interface CurrentFile {
  readonly mtimeMs: number
  readonly size: number
  readonly sha256: string
}

/** Whether the file still looks as it did when `seen` was recorded: by hash when the stamp has one, else size and mtime. */
export const unchangedSince = (seen: FileStamp, now: CurrentFile): boolean =>
  seen.sha256 !== undefined
    ? seen.sha256.toLowerCase() === now.sha256
    : seen.size === now.size && Math.floor(seen.mtimeMs) === Math.floor(now.mtimeMs)

/**
 * Stale-write protection for a write or edit to an existing file.
 *
 * - `expected_sha256` given: the file's current hash must start with it (the
 *   short hash an edit's answer shows, or the full one; scripted
 *   use outside a session); a match is also enough inside a session, since it
 *   proves the caller knows the exact current content.
 * - Inside an agent session (the ledger is enforced): the file must have been
 *   read (or written) in this session and be unchanged on disk since.
 *
 * Fails as stale with the reason; the hint is to Read the file again.
 */
export const guardFresh = (input: {
  readonly ledger: FileLedgerShape
  /** The ledger key: the file's real absolute path. */
  readonly key: string
  /** The path as results show it. */
  readonly display: string
  readonly current: CurrentFile
  readonly expectedSha256?: string | undefined
}): Effect.Effect<void, EditError> =>
  Effect.gen(function* () {
    const { display, current } = input
    const reread = [hint("Read", "high", { path: display })]
    const stale = (message: string) => new EditError({ reason: "stale", message, hints: reread, path: display })
    if (input.expectedSha256 !== undefined) {
      const expected = input.expectedSha256.toLowerCase()
      if (current.sha256.startsWith(expected)) return
      return yield* stale(
        `${display} has changed: its sha256 is ${current.sha256}, not the expected ${expected}. Read it again and redo the change on the current content.`,
      )
    }
    if (!input.ledger.enforced) return
    const seen = yield* input.ledger.lastSeen(input.key)
    if (seen === undefined) {
      return yield* stale(`${display} has not been read in this session. Read it before changing it, so the change is based on its current content.`)
    }
    if (unchangedSince(seen, current)) return
    const sizes = seen.size === current.size ? `size ${current.size} bytes` : `size ${seen.size} → ${current.size} bytes`
    return yield* stale(
      `${display} changed on disk since it was last read in this session (${sizes}; modified ${new Date(current.mtimeMs).toISOString()}). ` +
        `Read it again and redo the change on the current content.`,
    )
  })
