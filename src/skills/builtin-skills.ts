import { Effect } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { embeddedAssets, type EmbeddedAssets } from "../embedded/assets.ts"

/** A skill that ships with anvil (skills/<name>/SKILL.md in the repository). */
export interface BuiltinSkill {
  /** The skill's folder name. */
  readonly name: string
  /** Where the text was read from: a `$bunfs` path inside the executable, or the repository's SKILL.md. */
  readonly path: string
  /** The whole SKILL.md, front matter included. */
  readonly text: string
}

/** What a user or the model is shown for a file inside the executable (a built-in skill's SKILL.md): no path they could open. */
export const BUILT_IN_PATH = "(built in)"

/** Whether a path is inside the compiled executable's own file system (Bun's `$bunfs`; `B:/~BUN/` on Windows). */
const insideExecutable = (path: string): boolean => path.startsWith("/$bunfs/") || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(path)

/** A skill file's path as shown: {@link BUILT_IN_PATH} for one inside the executable, else `display(path)`. */
export const shownSkillPath = (path: string, display: (path: string) => string = (p) => p): string =>
  insideExecutable(path) ? BUILT_IN_PATH : display(path)

/**
 * The repository's skills/ folder, used in a source checkout (`bun src/main.ts`,
 * `bun test`), where nothing is embedded. Located from this module's own
 * folder, the one place where that is allowed: it is src/skills/ both in the
 * checkout and in any copy of it.
 */
export const sourceSkillsDir = (path: Path): string => path.resolve(import.meta.dir, "..", "..", "skills")

/**
 * The built-in skills, sorted by name. Inside the compiled executable they are
 * read from the files build.ts embedded; in a source checkout from the
 * repository's skills/ folder (every skills/<name>/SKILL.md). A skill that
 * cannot be read is left out; this never fails.
 *
 * `assets` is the embedded manifest (a test passes its own).
 */
export const loadBuiltinSkills = Effect.fn("loadBuiltinSkills")(function* (assets: EmbeddedAssets = embeddedAssets) {
  const fs = yield* FileSystem
  const path = yield* Path
  let found: Array<{ name: string; path: string }>
  if (assets.compiled) {
    found = Object.entries(assets.skills).map(([name, file]) => ({ name, path: file }))
  } else {
    const dir = sourceSkillsDir(path)
    const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
    found = names.map((name) => ({ name, path: path.join(dir, name, "SKILL.md") }))
  }
  const skills: Array<BuiltinSkill> = []
  for (const entry of found) {
    const text = yield* fs.readFileString(entry.path).pipe(Effect.option)
    if (text._tag === "Some") skills.push({ ...entry, text: text.value })
  }
  return skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
})
