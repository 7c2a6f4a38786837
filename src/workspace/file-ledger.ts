import { Context, Effect, Layer } from "effect"

/** What a tool saw of a file when it last read it. */
export interface FileStamp {
  readonly mtimeMs: number
  readonly size: number
  /** sha256 of the bytes, hex, when the reader computed it. */
  readonly sha256?: string
}

/**
 * The session's record of what it has read (stale-write protection):
 * inside an agent session a write/edit to an existing file that was never read,
 * or changed on disk since, is refused as CONFLICT. Outside a session (one-shot
 * `anvil tool`) the ledger is disabled and such writes rely on the optional
 * expected-sha256 parameter instead.
 */
export interface FileLedgerShape {
  /** True inside an agent session: writes must be preceded by a read. */
  readonly enforced: boolean
  /** Records that `absolutePath` was read (or written) and how it looked then. */
  readonly record: (absolutePath: string, stamp: FileStamp) => Effect.Effect<void>
  readonly lastSeen: (absolutePath: string) => Effect.Effect<FileStamp | undefined>
}

export class FileLedger extends Context.Service<FileLedger, FileLedgerShape>()("anvil/FileLedger") {
  /** A ledger that remembers reads and enforces read-before-write (one per agent session). */
  static makeEnforcing = Effect.sync((): FileLedgerShape => {
    const seen = new Map<string, FileStamp>()
    return {
      enforced: true,
      record: (p, stamp) => Effect.sync(() => void seen.set(p, stamp)),
      lastSeen: (p) => Effect.sync(() => seen.get(p)),
    }
  })

  /** {@link FileLedger.makeEnforcing} as a layer. */
  static enforcing = Layer.effect(FileLedger, FileLedger.makeEnforcing)

  /** A ledger that records nothing and enforces nothing (direct tool runs). */
  static none: FileLedgerShape = {
    enforced: false,
    record: () => Effect.void,
    lastSeen: () => Effect.succeed(undefined),
  }

  /** {@link FileLedger.none} as a layer. */
  static disabled = Layer.succeed(FileLedger, FileLedger.none)
}
