/**
 * Keeps what a language server writes on stdout to LSP's frames
 * (`Content-Length: N` headers, a blank line, N bytes) and sets aside what
 * lies between them: a server that prints a banner or a log line there would
 * otherwise put the JSON-RPC reader out of step for good, and every later
 * answer would be lost until its deadline. What is set aside is handed to
 * `onJunk` (for the report); the frames go on unchanged.
 */

const TERMINATOR = Buffer.from("\r\n\r\n")
/** Text without a header's end past this size is junk (a server printing a stream of logs, never a frame). */
const MAX_HEADER_BYTES = 64 * 1024

export class LspFrameFilter {
  private pending: Buffer = Buffer.alloc(0)
  /** The body bytes the current frame still needs; -1 while reading a header. */
  private bodyLeft = -1

  constructor(private readonly onJunk: (text: string) => void) {}

  /** The frame bytes in `chunk` (and what came before it), in order. */
  push(chunk: Buffer): Array<Buffer> {
    const out: Array<Buffer> = []
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    for (;;) {
      if (this.bodyLeft >= 0) {
        if (this.pending.length === 0) return out
        const take = Math.min(this.bodyLeft, this.pending.length)
        out.push(this.pending.subarray(0, take))
        this.pending = this.pending.subarray(take)
        this.bodyLeft -= take
        if (this.bodyLeft > 0) return out
        this.bodyLeft = -1
        continue
      }
      const end = this.pending.indexOf(TERMINATOR)
      if (end < 0) {
        if (this.pending.length > MAX_HEADER_BYTES) {
          this.onJunk(this.pending.subarray(0, 300).toString("utf8"))
          this.pending = Buffer.alloc(0)
        }
        return out
      }
      const lines = this.pending.subarray(0, end).toString("latin1").split(/\r?\n/)
      // The frame's header is its last Content-Length line (a log line may end just before it, on the same line)
      // with the Content-Type line beside it.
      let at = -1
      let length = 0
      for (let i = lines.length - 1; i >= 0 && at < 0; i--) {
        const m = /content-length:\s*(\d+)\s*$/i.exec(lines[i]!)
        if (!m) continue
        at = i
        length = Number(m[1])
        if (m.index > 0) {
          lines.splice(i, 1, lines[i]!.slice(0, m.index), lines[i]!.slice(m.index))
          at = i + 1
        }
      }
      if (at < 0) {
        // No frame header in it at all: a log line that happened to end with a blank line.
        this.onJunk(this.pending.subarray(0, end).toString("utf8"))
        this.pending = this.pending.subarray(end + TERMINATOR.length)
        continue
      }
      const headers = [lines[at]!, ...lines.slice(at + 1).filter((l) => /^content-type:/i.test(l))]
      if (at > 0 && /^content-type:/i.test(lines[at - 1]!)) headers.push(lines[--at]!)
      const junk = [...lines.slice(0, at), ...lines.slice(at + 1).filter((l) => !/^content-(type|length):/i.test(l))].filter((l) => l.trim() !== "")
      if (junk.length > 0) this.onJunk(Buffer.from(junk.join("\n"), "latin1").toString("utf8"))
      out.push(Buffer.from(`${headers.join("\r\n")}\r\n\r\n`, "latin1"))
      this.bodyLeft = length
      this.pending = this.pending.subarray(end + TERMINATOR.length)
    }
  }
}
