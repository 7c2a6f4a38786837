import { Effect } from "effect"
import type { ByteSource } from "../workspace/line-window.ts"
import { decodeBytes, type TextEncodingName } from "../workspace/text-sniff.ts"

/** What to take from one line: characters (code points) from `skip`, at most `take` of them and `maxBytes` bytes. */
export interface SliceRequest {
  /** Byte position of the line's first byte. */
  readonly start: number
  /** The line's length in bytes (without its line break). */
  readonly length: number
  readonly encoding: TextEncodingName
  readonly skip: number
  readonly take: number
  readonly maxBytes: number
  /** Bytes of the line scanned at most to count its characters; past them the total stays unknown. */
  readonly countBytes: number
}

export interface LineSlice {
  readonly text: string
  /** Characters shown. */
  readonly chars: number
  /** Characters in the whole line, when counted. */
  readonly totalChars: number | undefined
  /** Whether characters follow the shown ones. */
  readonly more: boolean
}

const BLOCK = 1 << 20

/**
 * A part of one line, read from the file in blocks: the line is scanned once,
 * counting characters (a UTF-8 character starts at every byte that is not a
 * continuation byte; in Latin-1 every byte is one), so a cut line's rest can be
 * asked for by character column and its full length stated without decoding it.
 */
export const lineSlice = <E>(source: ByteSource<E>, request: SliceRequest): Effect.Effect<LineSlice, E> =>
  Effect.gen(function* () {
    const { start, length, skip, take, maxBytes } = request
    const end = start + length
    const scanTo = Math.min(end, start + Math.max(request.countBytes, 0))
    const everyByte = request.encoding === "latin1"
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(BLOCK, length)))
    let chars = 0
    let from = -1 // byte position of character `skip`
    let to = -1 // byte position after the shown characters
    let position = start
    // Until the slice is found the scan goes on; after it, only while counting is allowed.
    while (position < end && (to === -1 || position < scanTo)) {
      const n = yield* source.readAt(position, length - (position - start) < buffer.length ? buffer.subarray(0, end - position) : buffer)
      if (n <= 0) break
      for (let i = 0; i < n; i++) {
        if (!everyByte && (buffer[i]! & 0xc0) === 0x80) continue
        const at = position + i
        if (chars === skip) from = at
        if (from !== -1 && to === -1 && (chars === skip + take || at - from >= maxBytes)) to = at
        chars++
      }
      position += n
    }
    const counted = position >= end
    if (from === -1) return { text: "", chars: 0, totalChars: counted ? chars : undefined, more: false }
    if (to === -1) to = end
    // A character cut by the byte cap is left for the next slice.
    const bytes = Buffer.allocUnsafe(to - from)
    const got = bytes.length > 0 ? yield* source.readAt(from, bytes) : 0
    const text = decodeBytes(bytes.subarray(0, got), request.encoding)
    const shown = everyByte ? got : countStarts(bytes.subarray(0, got))
    return { text, chars: shown, totalChars: counted ? chars : undefined, more: to < end }
  })

const countStarts = (bytes: Uint8Array): number => {
  let n = 0
  for (let i = 0; i < bytes.length; i++) if ((bytes[i]! & 0xc0) !== 0x80) n++
  return n
}
