import { Clock, Context, Effect, Layer } from "effect"
import { Path } from "effect/Path"
import { constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, unlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs"
import { type CheckedDir, closeQuietly, inDir, openCheckedDir } from "../workspace/checked-fs.ts"
import { join } from "node:path"
import { ensureStateDir } from "../workspace/state-dir.ts"
import { OutputSettings } from "./output-settings.ts"
import { Utf8Writer, writeJson } from "./utf8-writer.ts"

/** Keeps full tool outputs on disk when what reaches the model is cut. */
export interface SpillStoreShape {
  /** The absolute spill folder. */
  readonly dir: string
  /**
   * Writes `value` as JSON (`JSON.stringify(value, null, 2)`, streamed: its
   * long strings are escaped and written piece by piece) to
   * `tool_<YYYYMMDD_HHMMSS>_<Tool>.json` (UTC) and returns its absolute path.
   * Never overwrites: a second spill in the same second gets a `_2`, `_3`…
   * suffix. With `text`, the model-visible text is also written beside it as
   * `<same name>.output.txt`, one line per line, so Read with offset/limit and
   * Grep work on it (inside the JSON it is one long string). A file that could
   * not be written whole is removed.
   *
   * With `key` (a digest of what is saved) the name ends in `_<key>`, and a
   * spill of this tool with the same key that is still there whole is reused
   * (its time refreshed for retention) instead of written again: the pages of
   * one listing share one file.
   */
  readonly spill: (toolTitle: string, value: unknown, text?: string, key?: string) => Effect.Effect<SpilledFiles, Error>
  /**
   * Creates a new, empty spill file `tool_<YYYYMMDD_HHMMSS>_<Tool>.<extension>`
   * (extension "json" or "txt", optionally with a qualifier: "stdout.txt") for
   * output that is written piece by piece, e.g. a command's stream, which never
   * has to be held in memory whole. Never overwrites, like `spill`.
   */
  readonly openStream: (toolTitle: string, extension: string) => Effect.Effect<SpillStream, Error>
}

/** The files one spill wrote (absolute paths). */
export interface SpilledFiles {
  readonly json: string
  readonly text?: string
}

/** A spill file being written piece by piece. */
export interface SpillStream {
  /** The absolute path of the file. */
  readonly path: string
  /** Appends the bytes to the file. */
  readonly write: (bytes: Uint8Array) => Effect.Effect<void, Error>
  /**
   * Appends the bytes at once, throwing on failure: for a command's output,
   * written chunk by chunk as the pipe delivers it (no batching copy, no
   * promise per chunk; a page-cache write is a fraction of a millisecond).
   */
  readonly writeSync: (bytes: Uint8Array) => void
  /**
   * The open descriptor (write-only): a command can be given it as its
   * stdout/stderr and write the stream to disk itself, with no copy through
   * anvil.
   */
  readonly fd: number
  /**
   * Deletes the file, when it turned out not to be needed (a command's output
   * short enough to show whole), and only while the name is still this very
   * file. Harmless when it is gone.
   */
  readonly remove: Effect.Effect<void>
  /** Closes the file; closing twice is harmless. */
  readonly close: Effect.Effect<void>
}

/** A new file only: never an existing name, never through a link. Readable too, for a command's output written to it directly. */
const CREATE_NEW = constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/** A spill stream over an open descriptor. */
const appendOnly = (fd: number, file: string): SpillStream => {
  let open = true
  const writeSyncAll = (bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
  }
  return {
    path: file,
    write: (bytes) => Effect.try({ try: () => writeSyncAll(bytes), catch: (e) => (e instanceof Error ? e : new Error(String(e))) }),
    writeSync: writeSyncAll,
    fd,
    remove: Effect.sync(() => {
      try {
        const mine = fstatSync(fd)
        const named = lstatSync(file)
        if (mine.ino === named.ino && mine.dev === named.dev) unlinkSync(file)
      } catch {
        // closed, or already gone
      }
    }),
    close: Effect.sync(() => {
      if (open) closeQuietly(fd)
      open = false
    }),
  }
}

/**
 * Creates `file` (a new name only) and fills it through one UTF-8 writer. A
 * failed write removes the file: a spill is there whole or not at all.
 */
const writeNew = (file: string | Buffer, fill: (out: Utf8Writer) => void): void => {
  const fd = openSync(file, CREATE_NEW, 0o666)
  try {
    const out = new Utf8Writer(fd)
    fill(out)
    out.flush()
  } catch (e) {
    removeQuietly(file)
    throw e
  } finally {
    closeQuietly(fd)
  }
}

const removeQuietly = (file: string | Buffer) => {
  try {
    unlinkSync(file)
  } catch {
    // not there
  }
}

/**
 * A spill text that holds lines (a list, a tool's rendered text), ending with
 * a line break like any text file: Read then shows no "no newline at end of
 * file" note, and `wc -l` counts the last line. A document saved as it came
 * (a fetched page) is written without it, byte for byte.
 */
export const asLines = (text: string): string => (text === "" || text.endsWith("\n") ? text : `${text}\n`)

/** Spill file names this store owns; retention deletes nothing else. */
export const SPILL_NAME = /^tool_\d{8}_\d{6}_[A-Za-z0-9_.-]+\.(?:json|txt|png|jpg|gif|webp|avif|bmp|ico|tiff|bin)$/

const pad = (n: number, w = 2) => String(n).padStart(w, "0")
export const spillStamp = (ms: number): string => {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}_${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`
}

/**
 * An earlier spill named `tool_<stamp>_<safe>.json` (its `.output.txt` beside it when `text` is given, as long as
 * `text`): both regular files, looked up through the checked folder. Their time is refreshed, so retention
 * counts from this use.
 */
const earlierSpill = (folder: string, checked: CheckedDir, safe: string, text: string | undefined, now: number) => {
  let names: Array<string>
  try {
    names = readdirSync(folder)
  } catch {
    return undefined
  }
  const suffix = `_${safe}.json`
  for (const json of names) {
    if (!json.startsWith("tool_") || !json.endsWith(suffix) || !SPILL_NAME.test(json)) continue
    const sidecar = json.replace(/\.json$/, ".output.txt")
    try {
      if (!lstatSync(inDir(checked, json)).isFile()) continue
      if (text !== undefined) {
        const info = lstatSync(inDir(checked, sidecar))
        if (!info.isFile() || info.size !== Buffer.byteLength(text)) continue
      }
      const when = new Date(now)
      utimesSync(inDir(checked, json), when, when)
      if (text !== undefined) utimesSync(inDir(checked, sidecar), when, when)
      return { json, ...(text !== undefined ? { text: sidecar } : {}) }
    } catch {
      // removed meanwhile: look on
    }
  }
  return undefined
}

export class SpillStore extends Context.Service<SpillStore, SpillStoreShape>()("anvil/SpillStore") {
  /** The store over the settings' folder. */
  static make = Effect.gen(function* () {
    const path = yield* Path
    const settings = yield* OutputSettings
    const { dir } = settings
    // The folder is made (and, for anvil's own one, checked to be a real folder inside the root) at each use:
    // files are then created exclusively in it, so a name planted as a link is never written through.
    // The folder is then opened and must really be that folder: the files are created through the open
    // descriptor, so a folder swapped for a link after the check is never written into.
    const prepare = Effect.acquireRelease(
      Effect.try({
        try: () => {
          let folder = dir
          if (settings.stateRoot !== undefined) folder = ensureStateDir(settings.stateRoot, "tool-output", settings.stateEnv)
          else {
            mkdirSync(dir, { recursive: true })
            try {
              writeFileSync(join(dir, ".gitignore"), "*\n", { flag: "wx" })
            } catch {
              // there already
            }
            folder = realpathSync(dir)
          }
          return { folder, checked: openCheckedDir((p) => p === folder, folder) }
        },
        catch: (e) => (e instanceof Error ? e : new Error(String(e))),
      }),
      ({ checked }) => Effect.sync(() => closeQuietly(checked.fd)),
    )
    const spill = (toolTitle: string, value: unknown, text?: string, key?: string) =>
      Effect.gen(function* () {
        const { folder, checked } = yield* prepare
        const now = yield* Clock.currentTimeMillis
        const stamp = spillStamp(now)
        const safe = (toolTitle.replace(/[^A-Za-z0-9_.-]/g, "_") || "Tool") + (key !== undefined ? `_${key.replace(/[^A-Za-z0-9]/g, "")}` : "")
        if (key !== undefined) {
          const known = earlierSpill(folder, checked, safe, text, now)
          if (known !== undefined) return { json: path.join(folder, known.json), ...(known.text !== undefined ? { text: path.join(folder, known.text) } : {}) }
        }
        for (let n = 1; ; n++) {
          const name = `tool_${stamp}_${safe}${n === 1 ? "" : `_${n}`}.json`
          const written = yield* Effect.try({
            try: () => writeNew(inDir(checked, name), (out) => writeJson(out, value)),
            catch: (e) => e as NodeJS.ErrnoException,
          }).pipe(Effect.result)
          if (written._tag === "Success") {
            const file = path.join(folder, name)
            if (text === undefined) return { json: file }
            // The JSON name was claimed exclusively, so its sibling is ours too.
            const sidecar = name.replace(/\.json$/, ".output.txt")
            yield* Effect.try({
              try: () => writeNew(inDir(checked, sidecar), (out) => out.write(text)),
              catch: (e) => {
                removeQuietly(inDir(checked, name))
                return e instanceof Error ? e : new Error(String(e))
              },
            })
            return { json: file, text: path.join(folder, sidecar) }
          }
          if (written.failure.code !== "EEXIST") return yield* Effect.fail(written.failure as Error)
        }
      }).pipe(Effect.scoped)
    const openStream = (toolTitle: string, extension: string) =>
      Effect.gen(function* () {
        const { folder, checked } = yield* prepare
        const stamp = spillStamp(yield* Clock.currentTimeMillis)
        const safe = toolTitle.replace(/[^A-Za-z0-9_.-]/g, "_") || "Tool"
        const ext = extension.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "") || "txt"
        for (let n = 1; ; n++) {
          const name = `tool_${stamp}_${safe}${n === 1 ? "" : `_${n}`}.${ext}`
          const opened = yield* Effect.try({
            try: () => openSync(inDir(checked, name), CREATE_NEW, 0o666),
            catch: (e) => e as NodeJS.ErrnoException,
          }).pipe(Effect.result)
          if (opened._tag === "Success") return appendOnly(opened.success, path.join(folder, name))
          if (opened.failure.code !== "EEXIST") return yield* Effect.fail(opened.failure as Error)
        }
      }).pipe(Effect.scoped)
    return { dir, spill, openStream }
  })

  static layer = Layer.effect(SpillStore, SpillStore.make)
}
