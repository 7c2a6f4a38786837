import { shownValue } from "../protocol/shown-value.ts"
import { Effect, Layer } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { embeddedAssets } from "../embedded/assets.ts"
import { pluginSkillFolders } from "../plugins/plugin-extras.ts"
import { PlatformLive } from "../runtime.ts"
import { shownSkillPath } from "../skills/builtin-skills.ts"
import { loadSkillCatalog, type SkillCatalog } from "../skills/skill-catalog.ts"
import { projectRootOf } from "../workspace/project-root.ts"
import { UsageError } from "./args.ts"
import { commandConfig } from "./project.ts"
import type { CliIO } from "./output.ts"

export const SKILLS_HELP = `Usage: anvil skills [--json]

Lists the skills the agent can load with its skill tool: name, source and description, and the
skills that cannot be loaded with the reason. Skills are folders <dir>/<name>/SKILL.md, found in
(first match wins for a name):
  1. project: skills.paths entries inside the project or only in its anvil.json, then .anvil/skills/,
              .agents/skills/, .claude/skills/, then trusted Claude Code plugin folders' skills/
  2. user:    skills.paths entries outside the project, then ~/.config/anvil/skills/
              ($XDG_CONFIG_HOME/anvil/skills/), ~/.agents/skills/, ~/.claude/skills/
              ($CLAUDE_CONFIG_DIR/skills/ when that is absolute), then user Claude Code
              plugin folders' skills/
  3. builtin: the skills shipped with anvil (create-skill)
--json prints everything (paths, overrides, warnings, the folders searched) as JSON.
`

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)

/** The human listing of a catalogue; `display` names paths (root-relative inside the project). */
export const formatSkills = (catalog: SkillCatalog, display: (p: string) => string): string => {
  const out: Array<string> = []
  const width = Math.max(4, ...catalog.skills.map((s) => s.name.length), ...catalog.invalid.map((s) => s.name.length))
  if (catalog.skills.length === 0) out.push("No skills found.")
  else {
    out.push(`${"NAME".padEnd(width)}  SOURCE   DESCRIPTION`)
    for (const s of catalog.skills) {
      out.push(`${s.name.padEnd(width)}  ${s.source.padEnd(7)}  ${clip(s.description.replace(/\s+/g, " "), 100)}`)
      const pad = " ".repeat(width + 11)
      // A built-in skill's path is inside the executable: it names nothing the user can open.
      for (const o of s.overrides) out.push(o.source === "builtin" ? `${pad}overrides the built-in skill` : `${pad}overrides the ${o.source} skill at ${display(o.path)}`)
      for (const w of s.warnings) out.push(`${pad}warning: ${w} (${display(s.path)})`)
    }
  }
  if (catalog.invalid.length > 0) {
    out.push("", "Invalid (cannot be loaded):")
    for (const s of catalog.invalid) out.push(`${s.name.padEnd(width)}  ${s.source.padEnd(7)}  ${display(s.path)}: ${s.reason}`)
  }
  for (const p of catalog.problems) out.push("", `Problem: ${p}`)
  const folders = catalog.folders.map((f) => `${display(f.dir)} (${f.source}${f.exists ? "" : ", missing"})`)
  out.push("", `Searched: ${folders.join(", ")}, then the built-in skills.`)
  return `${out.join("\n")}\n`
}

/** `anvil skills [--json]`. */
export const skillsCommand = async (argv: ReadonlyArray<string>, io: CliIO, root: string | undefined, strict = false): Promise<number> => {
  const json = argv.includes("--json")
  const unknown = argv.find((a) => a !== "--json")
  if (unknown !== undefined) throw new UsageError(`anvil skills: unexpected argument ${shownValue(unknown)}`)
  const platform = PlatformLive as Layer.Layer<FileSystem | Path>
  const dir = await Effect.runPromise(
    Effect.gen(function* () {
      const fs = yield* FileSystem
      const found = yield* projectRootOf(io.cwd, root ?? io.env.ANVIL_ROOT)
      return yield* fs.realPath(found).pipe(Effect.orElseSucceed(() => found))
    }).pipe(Effect.provide(platform)),
  )
  // The configuration in force (the project's plugins.disabled adds to yours); --strict stops here on warnings.
  const config = await commandConfig(io, dir, { strict, trusted: true })
  const catalog = await Effect.runPromise(
    loadSkillCatalog(dir, embeddedAssets, pluginSkillFolders({ root: dir, env: io.env, config })).pipe(Effect.provideService(Config, config), Effect.provide(platform)),
  )
  if (json) {
    // A built-in skill's SKILL.md inside the executable is named "(built in)": its path there opens nothing.
    const skills = catalog.skills.map((s) => ({
      name: s.name,
      ...(s.displayName !== undefined ? { display_name: s.displayName } : {}),
      description: s.description,
      source: s.source,
      path: shownSkillPath(s.path),
      overrides: s.overrides.map((o) => ({ ...o, path: shownSkillPath(o.path) })),
      warnings: s.warnings,
    }))
    const invalid = catalog.invalid.map((s) => ({ ...s, path: shownSkillPath(s.path) }))
    io.out(`${JSON.stringify({ skills, invalid, folders: catalog.folders, problems: catalog.problems }, null, 2)}\n`)
    return 0
  }
  const display = (p: string) => shownSkillPath(p, (q) => (q === dir ? "." : q.startsWith(`${dir}/`) ? q.slice(dir.length + 1) : q))
  io.out(formatSkills(catalog, display))
  return 0
}
