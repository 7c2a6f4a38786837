/**
 * Decodes a UTF-8 byte stream that arrives in arbitrary chunks into text
 * blocks of whole lines. Each `decode` answers every complete line seen so far
 * (newline included) in one string, or "" when the chunk finished none; the
 * bytes after the last newline wait for the next chunk. A newline byte never
 * occurs inside a multi-byte character, so cutting there never splits one,
 * and a block decodes in one native call instead of one per line. `end`
 * answers the last line when the stream did not end with a newline.
 */

const NEWLINE = 0x0a

export class WholeLineDecoder {
  /** ignoreBOM: a U+FEFF that starts a block is text (a one-shot decode would drop it). */
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  /** Bytes after the last newline seen, in arrival order (a long line may span many chunks). */
  private carry: Array<Uint8Array> = []
  private carried = 0

  /** The complete lines up to the last newline in `chunk`, with what earlier chunks left over. */
  decode(chunk: Uint8Array): string {
    const last = chunk.lastIndexOf(NEWLINE)
    if (last === -1) {
      // The chunk may be a view of a buffer its producer reuses: keep a copy.
      if (chunk.length > 0) this.keep(chunk.slice())
      return ""
    }
    const head = chunk.subarray(0, last + 1)
    const text = this.carried === 0 ? this.decoder.decode(head) : this.decoder.decode(this.takeCarry(head))
    if (last + 1 < chunk.length) this.keep(chunk.slice(last + 1))
    return text
  }

  /** What followed the last newline (a final line without one), or "". */
  end(): string {
    return this.carried === 0 ? "" : this.decoder.decode(this.takeCarry(new Uint8Array(0)))
  }

  private keep(bytes: Uint8Array): void {
    this.carry.push(bytes)
    this.carried += bytes.length
  }

  /** The carried bytes followed by `tail`, as one array; empties the carry. */
  private takeCarry(tail: Uint8Array): Uint8Array {
    const out = new Uint8Array(this.carried + tail.length)
    let at = 0
    for (const part of this.carry) {
      out.set(part, at)
      at += part.length
    }
    out.set(tail, at)
    this.carry = []
    this.carried = 0
    return out
  }
}
