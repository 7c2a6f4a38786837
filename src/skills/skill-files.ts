import { Effect } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { closeQuietly, readAllFd } from "../workspace/checked-fs.ts"
import { openChecked } from "../workspace/checked-open.ts"
import { fromPlatformError } from "../workspace/fs-error.ts"
import { looksBinary } from "../workspace/text-sniff.ts"
import { SkillFileError } from "./skill-file-error.ts"

/**
 * The files a skill ships beside its SKILL.md (scripts/, references/,
 * assets/): listed by name so the model knows they exist, and read one at a
 * time, never outside the skill's folder.
 */

/** Most files listed for one skill. */
export const MAX_LISTED_FILES = 200
/** Deepest folder level listed. */
const MAX_DEPTH = 6
/** Files counted at most when more than the listed ones are there. */
const MAX_COUNTED_FILES = 100_000
/** Largest skill file returned whole. */
export const MAX_SKILL_FILE_READ_BYTES = 256 * 1024

/**
 * The files under a skill's folder, as `/`-separated paths relative to it,
 * sorted; SKILL.md itself and hidden entries (`.git`, `.DS_Store`) left out;
 * symbolic links to folders are listed, not followed. `truncated` when more
 * than {@link MAX_LISTED_FILES} exist.
 */
export const listSkillFiles = Effect.fn("listSkillFiles")(function* (dir: string) {
  const fs = yield* FileSystem
  const path = yield* Path
  const files: Array<string> = []
  let truncated = false
  // Past the listed files the rest are counted, up to a bound (a skill folder holding a whole tree).
  let total = 0
  const walk = (rel: ReadonlyArray<string>): Effect.Effect<void> =>
    Effect.gen(function* () {
      const entries = yield* fs.readDirectoryEntries(path.join(dir, ...rel)).pipe(Effect.orElseSucceed(() => []))
      for (const entry of [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (total >= MAX_COUNTED_FILES) return
        if (entry.name.startsWith(".")) continue
        const parts = [...rel, entry.name]
        if (entry.type === "Directory") {
          if (parts.length < MAX_DEPTH) yield* walk(parts)
          continue
        }
        if (rel.length === 0 && entry.name === "SKILL.md") continue
        total++
        if (files.length >= MAX_LISTED_FILES) {
          truncated = true
          continue
        }
        files.push(parts.join("/"))
      }
    })
  yield* walk([])
  return { files: files.sort(), truncated, total, totalIsLowerBound: total >= MAX_COUNTED_FILES }
})

const isWithin = (sep: string, parent: string, child: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep)

/**
 * The text of `file` (relative to the skill folder `dir`). A SkillFileError
 * when it would leave the folder (an absolute path, `..`, a symbolic link
 * pointing out), names a folder, is binary or is over
 * {@link MAX_SKILL_FILE_READ_BYTES}; a missing file fails as the workspace reports it.
 */
export const readSkillFile = Effect.fn("readSkillFile")(function* (dir: string, file: string) {
  const fs = yield* FileSystem
  const path = yield* Path
  const outside = new SkillFileError({ kind: "outside", message: `Access denied: '${file}' is outside the skill's folder.` })
  if (file.includes("\0")) return yield* new SkillFileError({ kind: "nul_byte", message: "Invalid parameter 'file': the path contains a NUL byte." })
  if (path.isAbsolute(file)) return yield* outside
  const absolute = path.resolve(dir, file)
  if (absolute === dir) {
    // "", "." and the like name the folder itself, which is inside, not outside.
    return yield* new SkillFileError({ kind: "directory", message: `'${file}' names the skill's folder itself, not a file in it; load the skill without 'file' to list its files.` })
  }
  if (!isWithin(path.sep, dir, absolute)) return yield* outside
  const shown = path.relative(dir, absolute).split(path.sep).join("/")
  const dirReal = yield* fs.realPath(dir).pipe(Effect.mapError((e) => fromPlatformError(e, dir)))
  // Opened first, then judged by where the descriptor really is: a link swapped in meanwhile leads nowhere.
  const inside = (p: string) => isWithin(path.sep, dirReal, p)
  const opened = yield* openChecked(inside, absolute, file, shown, "file").pipe(
    Effect.mapError((e) => (e.reason === "outside_root" ? outside : e)),
  )
  if (opened === undefined) return yield* new SkillFileError({ kind: "missing", message: `No such file or directory: ${shown}` })
  const bytes = yield* Effect.gen(function* () {
    if (opened.stat.isDirectory()) return yield* new SkillFileError({ kind: "directory", message: `${shown} is a directory, not a file.` })
    const size = Number(opened.stat.size)
    if (size > MAX_SKILL_FILE_READ_BYTES) {
      return yield* new SkillFileError({
        kind: "too_large",
        message: `${shown} is ${size} bytes, more than the ${MAX_SKILL_FILE_READ_BYTES} a skill file may have to be returned whole.`,
      })
    }
    return readAllFd(opened.fd, size)
  }).pipe(Effect.ensuring(Effect.sync(() => closeQuietly(opened.fd))))
  if (looksBinary(bytes)) return yield* new SkillFileError({ kind: "binary", message: `${shown} is a binary file; only text files of a skill can be returned.` })
  return { file: shown, absolute, content: new TextDecoder().decode(bytes), bytes: bytes.length }
})
