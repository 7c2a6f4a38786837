import { readRange, sizeOf } from "../process/file-capture.ts"

/** At most this much is read into memory at once while output is copied. */
const CHUNK = 1 << 20

/**
 * A foreground command's output while it runs, for when a program moves the command to the background (Claude
 * Code's Ctrl+B). The command writes each stream straight into a file of its own (run-shell's file capture, which
 * {@link attach}es them); once the command is moved, what it wrote is copied into its background output file —
 * stdout's new part, then stderr's — whenever that file is looked at, and a last time as the command ends
 * ({@link detach}, before the capture reads its files back and may cut them). A command moved before it started
 * writing is followed from its start. Without file capture (the pipe fallback) nothing is attached, and the
 * background command gets the call's answer when it ends instead.
 */
export class LiveOutput {
  private fds: ReadonlyArray<number> = []
  private copied: Array<number> = []
  private sink: ((bytes: Uint8Array) => void) | undefined
  private room = 0
  /** Output was left out because the background output file reached its cap. */
  overflowed = false
  /** The command's output went to files that were followed. */
  attached = false

  /** The command's stream files, as it starts. */
  attach(fds: ReadonlyArray<number>): void {
    this.fds = fds
    this.copied = fds.map(() => 0)
    this.attached = true
    this.pump()
  }

  /** The command ended: what it wrote last is copied, then the files are let go. */
  detach(): void {
    this.pump()
    this.fds = []
  }

  /**
   * Copies the command's output into `sink` from now on, at most `room` bytes in all (beyond that a capture's file
   * may have holes where the cap freed its blocks); what it wrote before comes at once.
   */
  follow(sink: (bytes: Uint8Array) => void, room: number): void {
    this.sink = sink
    this.room = room
    this.pump()
  }

  /** Copies what the command wrote since the last copy. */
  pump(): void {
    const sink = this.sink
    if (sink === undefined) return
    this.fds.forEach((fd, i) => {
      const size = sizeOf(fd)
      let at = this.copied[i] ?? 0
      // The command cut its own output (`: >/dev/stdout`): what it writes now starts at the file's beginning.
      if (size < at) at = 0
      while (at < size) {
        if (this.room <= 0) {
          this.overflowed = true
          break
        }
        const bytes = readRange(fd, at, Math.min(CHUNK, size - at, this.room))
        if (bytes.length === 0) break
        sink(bytes)
        at += bytes.length
        this.room -= bytes.length
      }
      this.copied[i] = at
    })
  }
}
