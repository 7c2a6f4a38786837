/** A setting anvil.json has that anvil does not understand: reported, never fatal unless `--strict`. */
export interface ConfigWarning {
  readonly file: string
  readonly line: number
  readonly column: number
  /** The dotted key path ("tools.read.max_limit"). */
  readonly key: string
  /**
   * `invalid_environment`: an environment variable (`variable`) whose value is refused; `file` is "environment", line and column 0.
   * `duplicate_key`: a key written again later in the same object (the later value is used).
   */
  readonly kind: "unknown_key" | "invalid_value" | "invalid_environment" | "duplicate_key"
  /** The environment variable of an `invalid_environment` warning. */
  readonly variable?: string
  readonly message: string
  /** The valid key closest to an unknown one, as a dotted path. */
  readonly nearest?: string
}

/** One warning as a line: `file:line:column: message` (`environment: message` for a variable). */
export const formatWarning = (w: ConfigWarning): string =>
  w.variable !== undefined ? `${w.file}: ${w.message}` : `${w.file}:${w.line}:${w.column}: ${w.message}`
