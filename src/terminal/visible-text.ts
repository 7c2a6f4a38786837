/**
 * Text from the model, a tool, a file or a plugin made safe to print on a person's terminal: every character a
 * terminal acts on instead of showing is shown as a visible stand-in. An escape sequence in a command could
 * otherwise clear or move lines so the approval prompt shows another command than the one that runs
 * (`rm -rf ~ ESC[2K CR $ echo hi`), set the clipboard (OSC 52) or the window title, and a carriage return or
 * backspaces overwrite what was printed; bidirectional overrides reorder what is read (Trojan Source).
 *
 * C0 controls (tab and line feed kept) and DEL become their Unicode control pictures (`␛`, `␍`, `␈`, `␡`), a
 * CR LF pair a plain line feed; C1 controls (0x9B is a one-byte CSI for some terminals) and the bidirectional
 * embedding, override, isolate and mark characters become `<U+202E>`. anvil's own colours are added after
 * this, so they still work.
 */

const HIDDEN = /\r\n|[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
/** The same, without the global flag (whose test() would remember where it stopped). */
const ANY_HIDDEN = new RegExp(HIDDEN.source)

const standIn = (ch: string): string => {
  if (ch === "\r\n") return "\n"
  const code = ch.charCodeAt(0)
  if (code < 0x20) return String.fromCharCode(0x2400 + code)
  if (code === 0x7f) return "\u2421"
  return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`
}

/** `text` with what a terminal would act on shown instead (see above); text without any is returned as it is. */
export const visibleText = (text: string): string => (ANY_HIDDEN.test(text) ? text.replace(HIDDEN, standIn) : text)

/**
 * anvil's own colours: the SGR sequences its styles (chalk, 16 colours) write, one parameter each: bold, dim,
 * italic, underline and their ends, red to cyan, gray and the default colour. Nothing else passes: not conceal
 * (`ESC[8m`), black or white text, background colours, 256-colour or RGB forms, reset (`ESC[0m`) or a sequence
 * of several parameters, any of which can hide text (conceal, text the colour of the background) in what a
 * repository wrote. A repository's text may still carry one of these colours; none of them hides it.
 */
const COLOUR = /(\x1b\[(?:1|2|3|4|22|23|24|3[1-6]|39|90)m)/

/**
 * `text` for a terminal that also shows anvil's own colours: every other sequence or control shown as
 * visibleText shows it. For stdout and stderr on a terminal, where anvil's listings and notices quote what a
 * repository wrote (a skill's description, an unknown key of its anvil.json, a hook's output, a server's
 * message) among coloured lines anvil made.
 */
export const visibleKeepingColours = (text: string): string =>
  ANY_HIDDEN.test(text) ? text.split(COLOUR).map((part, i) => (i % 2 === 1 ? part : visibleText(part))).join("") : text
