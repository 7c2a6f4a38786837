import { Effect } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { projectOnlyEntries } from "../config/project-only-entries.ts"
import { claudeConfigFolder, userConfigHome } from "../workspace/state-dir.ts"

/**
 * The folders searched for skills, in the precedence order skill-catalog.ts describes: `skills.paths`, the default
 * folders of anvil, the other agents and Claude Code (its config folder by the one rule of workspace/state-dir.ts), and
 * the folders Claude Code plugins bring.
 */

/** A folder searched for skills. */
export interface SkillFolder {
  /** Absolute path. */
  readonly dir: string
  readonly source: "project" | "user"
  /** Where it comes from: a `skills.paths` entry, one of the default folders, or a plugin. */
  readonly from: "skills.paths" | "default" | "plugin"
  readonly exists: boolean
  /** The Claude Code plugin whose folder it is. */
  readonly plugin?: string
  /** The plugin's own folder, holding its one SKILL.md: named by its front matter (see SkillNameSource). */
  readonly pluginRoot?: boolean
}

/** A folder of skills a Claude Code plugin brings (`skills/`, the manifest's `skills`, or the plugin's own folder). */
export interface PluginSkillFolder {
  readonly dir: string
  readonly source: "project" | "user"
  readonly plugin?: string
  readonly pluginRoot?: boolean
}

const isWithin = (sep: string, parent: string, child: string): boolean =>
  child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep)

/** The folders to search, in the precedence order skill-catalog.ts describes, with the configuration's problems. */
export const skillFolders = Effect.fn("skillFolders")(function* (
  root: string,
  /** Folders plugins add (Claude Code plugin folders' `skills/`), in plugin order. */
  pluginFolders: ReadonlyArray<PluginSkillFolder> = [],
) {
  const fs = yield* FileSystem
  const path = yield* Path
  const config = yield* Config
  const realOr = (p: string) => fs.realPath(p).pipe(Effect.orElseSucceed(() => path.resolve(p)))
  const rootReal = yield* realOr(root)
  const home = config.env.HOME ?? config.env.USERPROFILE
  const problems: Array<string> = []

  const skills = config.get("skills", {} as Record<string, unknown>)
  const configured: ReadonlyArray<unknown> =
    skills.paths === undefined ? [] : Array.isArray(skills.paths) ? skills.paths : typeof skills.paths === "string" ? [skills.paths] : []
  if (skills.paths !== undefined && !Array.isArray(skills.paths) && typeof skills.paths !== "string") {
    problems.push("skills.paths must be an array of folders")
  }

  // The project's list adds to the user's (trust/project-settings.ts): what only the project names is the project's.
  const fromProject = projectOnlyEntries(config.layers, "skills")
  const candidates: Array<{ dir: string; project: boolean; from: SkillFolder["from"] }> = []
  for (const entry of configured) {
    if (typeof entry !== "string" || entry.trim() === "") {
      problems.push(`skills.paths: ${JSON.stringify(entry)} is not a folder name`)
      continue
    }
    const given = entry.trim()
    if (given === "~" || given.startsWith("~/")) {
      if (!home) {
        problems.push(`skills.paths: '${given}' needs HOME, which is not set`)
        continue
      }
      candidates.push({ dir: path.join(home, given.slice(1)), project: fromProject.has(given), from: "skills.paths" })
    } else candidates.push({ dir: path.resolve(root, given), project: fromProject.has(given), from: "skills.paths" })
  }
  const configHome = userConfigHome(config.env)

  const resolved: Array<SkillFolder & { real: string }> = []
  for (const c of candidates) {
    const real = yield* realOr(c.dir)
    resolved.push({
      dir: c.dir,
      real,
      source: c.project || isWithin(path.sep, rootReal, real) ? "project" : "user",
      from: c.from,
      exists: yield* fs.exists(c.dir).pipe(Effect.orElseSucceed(() => false)),
    })
  }
  const folder = (dir: string, source: "project" | "user", from: SkillFolder["from"], plugin?: PluginSkillFolder) =>
    Effect.gen(function* () {
      return {
        dir,
        real: yield* realOr(dir),
        source,
        from,
        exists: yield* fs.exists(dir).pipe(Effect.orElseSucceed(() => false)),
        ...(plugin?.plugin !== undefined ? { plugin: plugin.plugin } : {}),
        ...(plugin?.pluginRoot ? { pluginRoot: true } : {}),
      } satisfies SkillFolder & { real: string }
    })
  // anvil's own folder first, so it wins a name clash with the other agents' folders (reported as an override).
  const projectDefaults = yield* Effect.forEach([".anvil", ".agents", ".claude"], (d) => folder(path.join(root, d, "skills"), "project", "default"))
  // Claude Code's own folder by its one rule: `$CLAUDE_CONFIG_DIR/skills` when that is absolute, else `~/.claude/skills`.
  const claudeDir = claudeConfigFolder(home, config.env)
  const userDirs = [
    ...(configHome ? [path.join(configHome, "anvil", "skills")] : []),
    ...(home ? [path.join(home, ".agents", "skills")] : []),
    ...(claudeDir ? [path.join(claudeDir, "skills")] : []),
  ]
  const userDefaults = yield* Effect.forEach(userDirs, (d) => folder(d, "user", "default"))
  const fromPlugins = yield* Effect.forEach(pluginFolders, (f) => folder(f.dir, f.source, "plugin", f))
  const ordered = [
    ...resolved.filter((f) => f.source === "project"),
    ...projectDefaults,
    ...fromPlugins.filter((f) => f.source === "project"),
    ...resolved.filter((f) => f.source === "user"),
    ...userDefaults,
    ...fromPlugins.filter((f) => f.source === "user"),
  ]
  const seen = new Set<string>()
  const folders: Array<SkillFolder> = []
  for (const { real, ...folder } of ordered) {
    if (seen.has(real)) continue
    seen.add(real)
    folders.push(folder)
  }
  return { folders, problems }
})
