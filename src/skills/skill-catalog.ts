import { Effect, Option } from "effect"
import { notAFolder, unknownOnly, unreadableFolder } from "./catalog-problems.ts"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { embeddedAssets, type EmbeddedAssets } from "../embedded/assets.ts"
import { loadBuiltinSkills } from "./builtin-skills.ts"
import { parseSkillDocument, type SkillDocument, type SkillNameSource } from "./skill-document.ts"
import { skillFolders, type PluginSkillFolder, type SkillFolder } from "./skill-folders.ts"

export type { PluginSkillFolder, SkillFolder }

/**
 * The skills anvil knows: the built-in ones and the user's,
 * each a folder `<skills folder>/<name>/SKILL.md`.
 *
 * Skills folders, first match wins for a name:
 * 1. project folders: the `skills.paths` entries inside the project root or
 *    named only by the project's anvil.json (in the order listed), then `<root>/.anvil/skills`, `<root>/.agents/skills`,
 *    `<root>/.claude/skills` (the folders other agents read), then the
 *    `skills/` of trusted project Claude Code plugin folders;
 * 2. user folders: the `skills.paths` entries outside the root (in order),
 *    then `$XDG_CONFIG_HOME/anvil/skills` (`~/.config/anvil/skills`),
 *    `~/.agents/skills`, Claude Code's `skills` (`$CLAUDE_CONFIG_DIR/skills` when that is absolute, else
 *    `~/.claude/skills`), then user plugins' `skills/`;
 * 3. the built-in skills.
 * So a user's skill overrides a built-in one of the same name, and a
 * project's overrides the user's. A `skills.paths` entry is relative to the
 * project root, absolute, or starts with `~` (the HOME of anvil's
 * environment); it may also name one skill's own folder (holding SKILL.md).
 * A skill whose SKILL.md is invalid is reported and overrides nothing.
 */

export type SkillSource = "builtin" | "project" | "user"

export interface Skill extends SkillDocument {
  readonly source: SkillSource
  /** The SKILL.md: an absolute path, or a `$bunfs` path inside the executable (shown as "(built in)", see shownSkillPath). */
  readonly path: string
  /** The skill's folder on disk; undefined for a built-in skill embedded in the executable (only its SKILL.md is). */
  readonly dir: string | undefined
  /** The Claude Code plugin that brought it: `/plugin:name` runs it too, as in Claude Code. */
  readonly plugin?: string
  /** Same-named skills this one hides, highest precedence first. */
  readonly overrides: ReadonlyArray<{ readonly source: SkillSource; readonly path: string }>
}

/** A SKILL.md that could not be used, and why. */
export interface InvalidSkill {
  /** The folder's name (the front matter's name could not be trusted). */
  readonly name: string
  readonly source: SkillSource
  readonly path: string
  readonly reason: string
}

export interface SkillCatalog {
  /** Usable skills, sorted by name, one per name. */
  readonly skills: ReadonlyArray<Skill>
  readonly invalid: ReadonlyArray<InvalidSkill>
  /** The folders searched, in precedence order. */
  readonly folders: ReadonlyArray<SkillFolder>
  /** Configuration problems (a `skills.paths` entry that is not a string, `~` without HOME, an unreadable folder). */
  readonly problems: ReadonlyArray<string>
}

/** SKILL.md files larger than this are reported instead of read. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024

const SKILL_FILE = "SKILL.md"

const byName = <T extends { readonly name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

type Found = { readonly ok: true; readonly skill: Omit<Skill, "overrides"> } | { readonly ok: false; readonly invalid: InvalidSkill }

/** Reads one skill folder's SKILL.md; undefined when the folder holds none (it is not a skill). */
const readSkillFolder = (dir: string, source: "project" | "user", from: SkillNameSource = "folder") =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    const folder = path.basename(dir)
    const names = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
    const file = path.join(dir, SKILL_FILE)
    if (!names.includes(SKILL_FILE)) {
      const variant = names.find((n) => n.toLowerCase() === SKILL_FILE.toLowerCase())
      if (variant === undefined) return undefined
      const invalid: InvalidSkill = { name: folder, source, path: path.join(dir, variant), reason: `found '${variant}': the file must be named ${SKILL_FILE}` }
      return { ok: false, invalid } as Found
    }
    const problem = (reason: string): Found => ({ ok: false, invalid: { name: folder, source, path: file, reason } })
    const info = yield* fs.stat(file).pipe(Effect.result)
    if (info._tag === "Failure") return problem(`cannot be read: ${info.failure.message}`)
    if (info.success.type !== "File") return problem(`${SKILL_FILE} is not a file`)
    if (Number(info.success.size) > MAX_SKILL_FILE_BYTES) return problem(`${SKILL_FILE} is larger than ${MAX_SKILL_FILE_BYTES / 1024 / 1024} MB`)
    const text = yield* fs.readFileString(file).pipe(Effect.result)
    if (text._tag === "Failure") return problem(`cannot be read: ${text.failure.message}`)
    const doc = parseSkillDocument(text.success, folder, from)
    if (!doc.ok) return problem(doc.reason)
    return { ok: true, skill: { ...doc.skill, source, path: file, dir } } as Found
  })

/** The skills of one skills folder (or of the one skill folder it is), folders sorted by name. */
const scanFolder = (folder: SkillFolder) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem
    const path = yield* Path
    if (!folder.exists) return { found: [] as Array<Found>, problem: undefined }
    const info = yield* fs.stat(folder.dir).pipe(Effect.option)
    if (Option.isSome(info) && info.value.type !== "Directory") return { found: [] as Array<Found>, problem: notAFolder(folder, info.value.type) }
    const itself = yield* readSkillFolder(folder.dir, folder.source, folder.pluginRoot ? "front-matter" : "folder")
    if (itself !== undefined) return { found: [itself], problem: undefined }
    const entries = yield* fs.readDirectoryEntries(folder.dir).pipe(Effect.result)
    if (entries._tag === "Failure") return { found: [] as Array<Found>, problem: unreadableFolder(folder, entries.failure) }
    const found: Array<Found> = []
    for (const entry of [...entries.success].sort(byName)) {
      if (entry.name.startsWith(".")) continue
      const dir = path.join(folder.dir, entry.name)
      const isDir =
        entry.type === "Directory" ||
        ((entry.type === "SymbolicLink" || entry.type === "Unknown") &&
          (yield* fs.stat(dir).pipe(Effect.map((i) => i.type === "Directory"), Effect.orElseSucceed(() => false))))
      if (!isDir) continue
      const one = yield* readSkillFolder(dir, folder.source)
      if (one !== undefined) found.push(one)
    }
    return { found, problem: undefined }
  })

/**
 * Every skill: scans the folders (see {@link skillFolders}) and adds the
 * built-in skills; same names resolved by precedence. Never fails: unreadable
 * folders and files are reported in `problems` and `invalid`.
 *
 * `assets` is the embedded manifest (a test passes its own).
 */
export const loadSkillCatalog = Effect.fn("loadSkillCatalog")(function* (
  root: string,
  assets: EmbeddedAssets = embeddedAssets,
  pluginFolders: ReadonlyArray<PluginSkillFolder> = [],
) {
  const path = yield* Path
  const { folders, problems: configProblems } = yield* skillFolders(root, pluginFolders)
  const problems = [...configProblems]
  const found: Array<Found> = []
  for (const folder of folders) {
    if (!folder.exists && folder.from === "skills.paths") problems.push(`skills.paths: the folder ${folder.dir} does not exist`)
    const scanned = yield* scanFolder(folder)
    if (scanned.problem) problems.push(scanned.problem)
    const { plugin } = folder
    found.push(...(plugin === undefined ? scanned.found : scanned.found.map((f): Found => (f.ok ? { ok: true, skill: { ...f.skill, plugin } } : f))))
  }
  for (const builtin of yield* loadBuiltinSkills(assets)) {
    const doc = parseSkillDocument(builtin.text, builtin.name)
    const dir = assets.compiled ? undefined : path.dirname(builtin.path)
    found.push(
      doc.ok
        ? { ok: true, skill: { ...doc.skill, source: "builtin", path: builtin.path, dir } }
        : { ok: false, invalid: { name: builtin.name, source: "builtin", path: builtin.path, reason: doc.reason } },
    )
  }
  const winners = new Map<string, { skill: Omit<Skill, "overrides">; overrides: Array<Skill["overrides"][number]> }>()
  const invalid: Array<InvalidSkill> = []
  for (const f of found) {
    if (!f.ok) {
      invalid.push(f.invalid)
      continue
    }
    const winner = winners.get(f.skill.name)
    if (winner) winner.overrides.push({ source: f.skill.source, path: f.skill.path })
    else winners.set(f.skill.name, { skill: f.skill, overrides: [] })
  }
  const all: Array<Skill> = [...winners.values()].map((w) => ({ ...w.skill, overrides: w.overrides })).sort(byName)
  // `skills.only` keeps the skills it names (a `plugin:name` entry names the skill `name`).
  const section = (yield* Config).get("skills", {} as Record<string, unknown>)
  const only = Array.isArray(section.only) ? (section.only as ReadonlyArray<unknown>).filter((n): n is string => typeof n === "string") : undefined
  const kept = only ? new Set(only.map((n) => n.slice(n.lastIndexOf(":") + 1))) : undefined
  const skills = kept ? all.filter((s) => kept.has(s.name)) : all
  const unknown = only ? unknownOnly(only, all.map((s) => s.name)) : undefined
  if (unknown !== undefined) problems.push(unknown)
  return { skills, invalid: invalid.sort(byName), folders, problems } satisfies SkillCatalog
})
