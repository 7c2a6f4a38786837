/** A setting anvil.json has that anvil does not understand: reported, never fatal unless `--strict`. */
export interface ConfigWarning {
  readonly file: string
  readonly line: number
  readonly column: number
  /** The dotted key path ("tools.read.max_limit"). */
  readonly key: string
  readonly kind: "unknown_key" | "invalid_value"
  readonly message: string
  /** The valid key closest to an unknown one, as a dotted path. */
  readonly nearest?: string
}

/** One warning as a line: `file:line:column: message`. */
export const formatWarning = (w: ConfigWarning): string => `${w.file}:${w.line}:${w.column}: ${w.message}`
