import { Data } from "effect"
/** What is wrong with a command line, for a program reading a json result: an option anvil does not have, one given without its value, a value it does not take, options that exclude each other. */
export type UsageKind = "unknown_option" | "missing_value" | "bad_value" | "conflicting_options" | "usage"

/** A usage error: the command line itself is wrong (exit code 2). */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string; readonly kind: UsageKind }> {
  constructor(message: string, kind: UsageKind = "usage") {
    super({ message, kind })
  }
}

/** The command line split into global options and the rest. */
export interface GlobalArgs {
  readonly root?: string | undefined
  readonly help: boolean
  readonly version: boolean
  /** `--strict`: configuration warnings are errors (exit code 2). */
  readonly strict: boolean
  /** Everything else, in order. */
  readonly rest: ReadonlyArray<string>
}

/**
 * Pulls the options that are valid anywhere (`--root DIR`, `--root=DIR`,
 * `--help`, `--version`, `--strict`) out of argv. A lone `--` ends option parsing.
 */
export const parseGlobal = (argv: ReadonlyArray<string>): GlobalArgs => {
  let root: string | undefined
  let help = false
  let version = false
  let strict = false
  const rest: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === "--") {
      rest.push(...argv.slice(i))
      break
    }
    if (a === "--root") {
      const v = argv[++i]
      if (v === undefined || v === "") throw new UsageError("--root needs a directory")
      root = v
    } else if (a.startsWith("--root=")) {
      root = a.slice("--root=".length)
      if (root === "") throw new UsageError("--root needs a directory")
    } else if (a === "--help" || a === "-h") help = true
    else if (a === "--version" || a === "-V") version = true
    else if (a === "--strict") strict = true
    else rest.push(a)
  }
  return { root, help, version, strict, rest }
}

/** A `--key value` flag value: JSON when it parses as JSON (numbers, booleans, arrays, objects), else the string. */
export const flagValue = (raw: string): unknown => {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}
