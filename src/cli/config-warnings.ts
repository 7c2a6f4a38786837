import { formatWarning, type ConfigWarning } from "../config/warning.ts"
import type { CliIO } from "./output.ts"

/** Prints anvil.json's warnings on stderr, one a line. */
export const printConfigWarnings = (io: CliIO, warnings: ReadonlyArray<ConfigWarning>): void => {
  for (const w of warnings) io.err(`anvil: warning: ${formatWarning(w)}\n`)
}

/** A warning as a stream-json `system` event. */
export const configWarningEvent = (w: ConfigWarning) => ({
  type: "system",
  subtype: "config_warning",
  file: w.file,
  line: w.line,
  column: w.column,
  key: w.key,
  kind: w.kind,
  message: w.message,
  ...(w.nearest !== undefined ? { nearest: w.nearest } : {}),
  ...(w.variable !== undefined ? { variable: w.variable } : {}),
})
