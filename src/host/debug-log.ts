import { closeSync, mkdirSync, openSync, writeSync } from "node:fs"
import { dirname, resolve } from "node:path"
import type { CliIO } from "../cli/output.ts"
import { shownValue } from "../protocol/shown-value.ts"
import { VERSION } from "../version.ts"

/**
 * Claude Code's `--debug` and `--debug-file PATH` (the Agent SDK's `debug` and `debugFile`): a log of the protocol,
 * for a person finding out why a program and anvil disagree. Each line is a time, a direction and the message:
 * `in` what the program sent, `out` what anvil wrote on stdout, `http` the model's requests (debug-http.ts),
 * `stderr` its diagnostics (in the file only: with
 * `--debug` alone the log itself goes to stderr, where the SDK's `stderr` callback gets it). A message is cut at
 * 2,000 characters. The file is appended to, its folder made if missing.
 */
export interface DebugLog {
  readonly write: (direction: "in" | "out" | "stderr" | "note" | "http", text: string) => void
  readonly close: () => void
}

const MAX = 2000

/** The log the flags ask for; undefined without them, or the usage error when the file cannot be opened. */
export const openDebugLog = (target: { readonly file?: string } | undefined, io: CliIO, argv: ReadonlyArray<string>): DebugLog | { readonly error: string } | undefined => {
  if (target === undefined) return undefined
  let fd: number | undefined
  if (target.file !== undefined) {
    const path = resolve(io.cwd, target.file)
    try {
      mkdirSync(dirname(path), { recursive: true })
      fd = openSync(path, "a", 0o600)
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message
      return { error: `--debug-file ${shownValue(target.file)} cannot be written (${why}): name a file in a folder anvil may write (the Agent SDK's debugFile option), or leave it out` }
    }
  }
  const sink = (text: string) => {
    try {
      if (fd !== undefined) writeSync(fd, text)
      else io.err(text)
    } catch {
      // A log that cannot be written (a full disk) must not stop the session it describes.
    }
  }
  const log: DebugLog = {
    write: (direction, text) => {
      if (fd === undefined && direction === "stderr") return
      const body = text.replace(/\n+$/, "")
      const cut = body.length > MAX ? `${body.slice(0, MAX)}… (${body.length} characters)` : body
      for (const line of cut.split("\n")) sink(`${new Date().toISOString()} [${direction}] ${line}\n`)
    },
    close: () => {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    },
  }
  log.write("note", `anvil ${VERSION} debug log; pid ${process.pid}; cwd ${io.cwd}; args ${JSON.stringify(argv)}`)
  return log
}

/** `io` with what it writes also logged. */
export const loggedIO = (io: CliIO, log: DebugLog): CliIO => ({
  ...io,
  out: (text) => {
    io.out(text)
    for (const line of text.split("\n")) if (line !== "") log.write("out", line)
  },
  err: (text) => {
    io.err(text)
    log.write("stderr", text)
  },
})
