/**
 * git's line-ending conversion on the way into the repository (convert.c's
 * crlf_to_git), which decides whether a working-tree file with CRLF line
 * endings matches an LF blob: what core.autocrlf and the text / eol / crlf
 * attributes ask for, git's text-or-binary guess, and the rule that a file
 * whose index copy already holds CRLF is left as it is under "auto".
 */

/** Counts of line endings and character kinds, as git gathers them to guess text from binary. */
export interface TextStats {
  readonly nul: number
  readonly lonecr: number
  readonly lonelf: number
  readonly crlf: number
  readonly printable: number
  readonly nonprintable: number
}

export const textStats = (bytes: Uint8Array): TextStats => {
  let nul = 0
  let lonecr = 0
  let lonelf = 0
  let crlf = 0
  let printable = 0
  let nonprintable = 0
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!
    if (c === 13) {
      if (bytes[i + 1] === 10) {
        crlf++
        i++
      } else lonecr++
      continue
    }
    if (c === 10) lonelf++
    else if (c === 127) nonprintable++
    else if (c < 32) {
      // Backspace, tab, escape and form feed count as text.
      if (c === 8 || c === 9 || c === 27 || c === 12) printable++
      else if (c === 0) {
        nul++
        nonprintable++
      } else nonprintable++
    } else printable++
  }
  // A DOS end-of-file mark at the very end is not held against the file.
  if (bytes.length > 0 && bytes[bytes.length - 1] === 0x1a) nonprintable--
  return { nul, lonecr, lonelf, crlf, printable, nonprintable }
}

/** git's guess that content is binary: a lone CR, a NUL, or more than one non-printable byte in 128. */
export const looksBinary = (s: TextStats): boolean => s.lonecr > 0 || s.nul > 0 || s.printable >> 7 < s.nonprintable

/** An attribute's state for one path: set, unset (`-attr`), a value (`attr=value`), or unspecified. */
export type AttributeValue = true | false | string | undefined

/** What happens to a file's line endings when git reads it in: nothing, CRLF → LF always, or only when it is text ("auto"). */
export type InboundEol = "none" | "text" | "auto"

const fromCrlfAttribute = (v: AttributeValue): "binary" | "text" | "auto" | undefined =>
  v === true ? "text" : v === false ? "binary" : v === "input" ? "text" : v === "auto" ? "auto" : undefined

/**
 * What git does to a file's line endings on the way in, from its `text`,
 * `crlf` (the older name) and `eol` attributes and core.autocrlf ("true",
 * "input", or false): an `eol` attribute makes a file text, an unspecified
 * `text` falls back to core.autocrlf (true and input guess, false leaves
 * files alone).
 */
export const inboundEol = (attrs: { readonly text: AttributeValue; readonly crlf: AttributeValue; readonly eol: AttributeValue }, autocrlf: string | undefined): InboundEol => {
  const action = fromCrlfAttribute(attrs.text) ?? fromCrlfAttribute(attrs.crlf)
  if (action === "binary") return "none"
  if (action !== undefined) return action
  if (attrs.eol === "lf" || attrs.eol === "crlf") return "text"
  const auto = (autocrlf ?? "false").toLowerCase()
  return auto === "input" || /^(true|yes|on|1)$/.test(auto) ? "auto" : "none"
}

/** Whether an index copy holds CRLF line endings in text (git then leaves the working file's CRLF alone under "auto"). */
export const hasCrlfText = (bytes: Uint8Array): boolean => {
  if (!bytes.includes(13)) return false
  const s = textStats(bytes)
  return !looksBinary(s) && s.crlf > 0
}

/**
 * The content git stores for working-tree `bytes`: CRLF pairs become LF when
 * `action` asks for it, except — under "auto" — for binary-looking content
 * and when `indexHasCrlf` says the indexed copy already has CRLF. Returns
 * `bytes` itself when nothing changes.
 */
export const toStored = async (bytes: Uint8Array, action: InboundEol, indexHasCrlf: () => Promise<boolean>): Promise<Uint8Array> => {
  if (action === "none" || bytes.length === 0 || !bytes.includes(13)) return bytes
  const s = textStats(bytes)
  if (s.crlf === 0) return bytes
  if (action === "auto" && (looksBinary(s) || (await indexHasCrlf()))) return bytes
  const out = new Uint8Array(bytes.length - s.crlf)
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!
    if (c === 13 && bytes[i + 1] === 10) continue
    out[n++] = c
  }
  return out
}
