import { Effect, Schema } from "effect"
import { Config } from "../config/config.ts"
import { embeddedAssets } from "../embedded/assets.ts"
import { Permissions } from "../permission/permissions.ts"
import { pluginSkillFolders } from "../plugins/plugin-extras.ts"
import { hint, type RetrievalHint } from "../protocol/hint.ts"
import { BUILT_IN_PATH, shownSkillPath } from "../skills/builtin-skills.ts"
import { loadSkillCatalog, type Skill, type SkillCatalog } from "../skills/skill-catalog.ts"
import { modelInvocable, skillInstructions } from "../skills/skill-arguments.ts"
import { skillNameProblem } from "../skills/skill-document.ts"
import { listSkillFiles, readSkillFile } from "../skills/skill-files.ts"
import { defineTool, type PermissionLevel, type Tool, type ToolResult } from "../tool-framework/definition.ts"
import { invalidParam, toolError } from "../protocol/tool-error.ts"
import { editDistance } from "../workspace/similar-paths.ts"
import { SessionInfo } from "../tool-framework/session.ts"
import { Workspace } from "../workspace/workspace.ts"
import description from "./skill.md" with { type: "text" }
import { skillToolError } from "./skill-errors.ts"
import { withWorkspaceErrors, workspaceToolError } from "./workspace-errors.ts"

const SkillParams = Schema.Struct({
  action: Schema.optionalKey(
    Schema.Literals(["list", "load"]).annotate({
      description: "Default: load with a name, else list.",
    }),
  ),
  name: Schema.optionalKey(Schema.String.annotate({ description: "Skill name." })),
  file: Schema.optionalKey(
    Schema.String.annotate({ description: "One of its other files to return instead." }),
  ),
  args: Schema.optionalKey(
    Schema.String.annotate({ description: "As typed after /name ($ARGUMENTS)." }),
  ),
})
type SkillParams = typeof SkillParams.Type

const actionOf = (p: SkillParams) => p.action ?? (p.name !== undefined ? "load" : "list")
const normalName = (name: string) => splitName(name).name

/** `plugin:name` (Claude Code's name for a plugin's skill) or a plain name, trimmed and in lower case. */
const splitName = (given: string): { readonly name: string; readonly plugin?: string } => {
  const name = given.trim().toLowerCase()
  const colon = name.indexOf(":")
  return colon > 0 ? { plugin: name.slice(0, colon), name: name.slice(colon + 1) } : { name }
}

/** The most names an error message spells out. */
const MAX_NAMES_IN_MESSAGE = 30

/** skill: lists the built-in and user skills and loads one's instructions. */
export const skillTool = defineTool({
  name: "skill",
  requires: [Permissions],
  title: "Skill",
  description,
  aliases: ["skills", "load_skill"],
  parameterAliases: { skill: "name", skill_name: "name" },
  permission: "allow",
  readOnly: true,
  parameters: SkillParams,
  // Patterns in `permission.skill` match the name of the skill a load asks for.
  permissionSubjects: (p) => (actionOf(p) === "load" && p.name !== undefined ? { kind: "name", values: [normalName(p.name)] } : undefined),
  run: (params) =>
    withWorkspaceErrors(Effect.gen(function* () {
      const workspace = yield* Workspace
      const permissions = yield* Permissions
      const config = yield* Config
      const action = actionOf(params)
      // The plugin folders are found when the catalogue is needed, after the parameters were checked.
      const loadCatalog = Effect.suspend(() =>
        loadSkillCatalog(workspace.root, embeddedAssets, pluginSkillFolders({ root: workspace.root, env: config.env, config })),
      )
      if (action === "list") {
        if (params.file !== undefined) return yield* invalidParam("file", "'file' is only used with action 'load' and a name")
        if (params.args !== undefined) return yield* invalidParam("args", "'args' is only used with action 'load' and a name")
        // One only a person may run (disable-model-invocation) is not listed to the model.
        const all = yield* loadCatalog
        const catalog = { ...all, skills: all.skills.filter(modelInvocable) }
        // A skill whose load the permission settings deny is not offered.
        const denied = catalog.skills.filter((s) => loadLevel(permissions, s.name) === "deny")
        return listResult(catalog, new Set(denied.map((s) => s.name)), (p) => shownSkillPath(p, workspace.display))
      }
      if (params.name === undefined || params.name.trim() === "") {
        return yield* invalidParam("name", "required when action is 'load'", [hint("Skill", "high", { action: "list" })])
      }
      const { name, plugin } = splitName(params.name)
      const problem = skillNameProblem(name)
      if (problem) return yield* invalidParam("name", problem, [hint("Skill", "high", { action: "list" })])
      const catalog = yield* loadCatalog
      const skill = catalog.skills.find((s) => s.name === name && (plugin === undefined || s.plugin?.toLowerCase() === plugin))
      if (!skill) {
        const broken = catalog.invalid.find((s) => s.name === name)
        if (broken) {
          return yield* toolError(
            "EXECUTION_ERROR",
            `The skill '${name}' (${broken.source}, ${shownSkillPath(broken.path, workspace.display)}) cannot be loaded: ${broken.reason}. Its SKILL.md needs fixing.`,
          )
        }
        return yield* notFound(name, catalog)
      }
      if (params.file !== undefined) return yield* fileResult(skill, params.file, workspace.display)
      // Claude Code's disable-model-invocation: a skill with side effects (a deploy) runs only when a person types /name.
      if (!modelInvocable(skill)) {
        return yield* toolError(
          "PERMISSION_DENIED",
          `The skill '${skill.name}' says disable-model-invocation: true: only a person runs it, by typing /${skill.plugin ? `${skill.plugin}:` : ""}${skill.name}. Ask the user to run it if it is needed.`,
        )
      }
      return yield* loadResult(skill, workspace, params.args, (yield* SessionInfo).id)
    })),
})

/** The level the permission rules give loading `name`. */
const loadLevel = (permissions: Permissions["Service"], name: string): PermissionLevel =>
  permissions.levelOf(skillTool as Tool, { action: "load", name })

const listResult = (catalog: SkillCatalog, denied: ReadonlySet<string>, display: (p: string) => string): ToolResult => {
  const offered = catalog.skills.filter((s) => !denied.has(s.name))
  const skills = offered.map((s) => ({
    name: s.name,
    ...(s.displayName !== undefined ? { display_name: s.displayName } : {}),
    description: s.description,
    source: s.source,
    path: display(s.path),
    ...(s.overrides.length > 0 ? { overrides: s.overrides.map((o) => ({ source: o.source, path: display(o.path) })) } : {}),
    ...(s.warnings.length > 0 ? { warnings: s.warnings } : {}),
  }))
  const invalid = catalog.invalid.map((s) => ({ name: s.name, source: s.source, path: display(s.path), reason: s.reason }))
  const lines: Array<string> = []
  if (offered.length === 0) lines.push("No skills available.")
  else {
    lines.push(`${offered.length} skill${offered.length === 1 ? "" : "s"}; load one's instructions with Skill(action="load", name=...) when the task matches its description:`)
    for (const s of offered) lines.push(`- ${s.name} [${s.source}]: ${s.description.replace(/\s+/g, " ")}`)
  }
  if (invalid.length > 0) {
    lines.push("", "Invalid skills (cannot be loaded):")
    for (const s of invalid) lines.push(`- ${s.name} [${s.source}] ${s.path}: ${s.reason}`)
  }
  if (denied.size > 0) lines.push("", `${denied.size} more skill${denied.size === 1 ? " is" : "s are"} denied by the permission settings.`)
  return {
    header: "Skill: list",
    data: { skills, invalid, ...(catalog.problems.length > 0 ? { problems: catalog.problems } : {}) },
    text: lines.join("\n"),
    stats: { count: skills.length, invalid: invalid.length },
  }
}

const loadResult = (skill: Skill, workspace: Workspace["Service"], args: string | undefined, sessionId: string) =>
  Effect.gen(function* () {
    const content = skillInstructions(skill, args, sessionId, BUILT_IN_PATH)
    const { files, truncated, total, totalIsLowerBound } = skill.dir
      ? yield* listSkillFiles(skill.dir)
      : { files: [] as Array<string>, truncated: false, total: 0, totalIsLowerBound: false }
    const shown = (p: string) => shownSkillPath(p, workspace.display)
    const path = shown(skill.path)
    const dir = skill.dir ? workspace.display(skill.dir) : undefined
    // Inside the project the model can Read the files itself; outside it only this tool reaches them.
    const readable = skill.dir !== undefined && workspace.contains(skill.dir)
    const lines = [`Source: ${skill.source} (${path === BUILT_IN_PATH ? "part of anvil" : path})`, `Description: ${skill.description.replace(/\s+/g, " ")}`]
    if (skill.overrides.length > 0) lines.push(`Overrides: ${skill.overrides.map((o) => (o.source === "builtin" ? "built-in" : `${o.source} (${shown(o.path)})`)).join(", ")}`)
    for (const w of skill.warnings) lines.push(`Warning: ${w}`)
    if (args !== undefined) lines.push(`Arguments: ${args}`)
    lines.push("", content === "" ? "(no instructions)" : content)
    const hints: Array<RetrievalHint> = []
    if (files.length > 0) {
      lines.push("", `Files in the skill's folder (${dir}):`, ...files.map((f) => `- ${f}`))
      if (truncated) lines.push(`- … (the first ${files.length} of ${totalIsLowerBound ? "at least " : ""}${total} files are listed; Glob(pattern="${dir}/**") lists them all)`)
      lines.push(
        readable
          ? `Open one with Read(path="${dir}/<file>"); run scripts from the skill's folder with Bash.`
          : `Open one with Skill(action="load", name="${skill.name}", file="<file>"); run scripts with Bash at ${dir}/<file>.`,
      )
      if (truncated) hints.push(hint("Glob", "medium", { pattern: `${dir}/**` }))
    }
    return {
      header: `Skill: ${skill.name}`,
      ...(truncated ? { status: "partial" as const, truncation: { reason: "file_limit", total_estimate: total } } : {}),
      data: {
        name: skill.name,
        description: skill.description,
        source: skill.source,
        path,
        ...(dir !== undefined ? { dir } : {}),
        content,
        ...(args !== undefined ? { args } : {}),
        files,
        ...(truncated ? { truncated: true, total_files: total } : {}),
        ...(skill.overrides.length > 0 ? { overrides: skill.overrides.map((o) => ({ source: o.source, path: shown(o.path) })) } : {}),
        ...(skill.warnings.length > 0 ? { warnings: skill.warnings } : {}),
      },
      text: lines.join("\n"),
      hints,
      stats: { files: files.length },
    } satisfies ToolResult
  })

const fileResult = (skill: Skill, file: string, display: (p: string) => string) =>
  Effect.gen(function* () {
    if (skill.dir === undefined) {
      return yield* toolError("NOT_FOUND", `The built-in skill '${skill.name}' has no other files: only its SKILL.md is part of anvil.`, {
        hints: [hint("Skill", "high", { action: "load", name: skill.name })],
      })
    }
    const read = yield* readSkillFile(skill.dir, file).pipe(
      Effect.catchTag("SkillFileError", (e) => Effect.fail(skillToolError(e))),
      Effect.catchTag("WorkspaceError", (e) =>
        Effect.fail(
          e.reason === "missing"
            ? toolError("NOT_FOUND", `The skill '${skill.name}' has no file '${file}'.`, { hints: [hint("Skill", "high", { action: "load", name: skill.name })] })
            : workspaceToolError(e),
        ),
      ),
    )
    return {
      header: `Skill: ${skill.name}/${read.file}`,
      data: { name: skill.name, source: skill.source, file: read.file, path: display(read.absolute), content: read.content },
      text: read.content,
      stats: { bytes: read.bytes },
    } satisfies ToolResult
  })

const notFound = (name: string, catalog: SkillCatalog) => {
  const names = catalog.skills.map((s) => s.name)
  const closest = [...names]
    .map((n) => ({ n, d: editDistance(name, n) / Math.max(name.length, n.length) - (n.includes(name) || name.includes(n) ? 0.5 : 0) }))
    .sort((a, b) => a.d - b.d)
    .filter((c) => c.d <= 0.5)
    .slice(0, 3)
  const shown =
    names.length > MAX_NAMES_IN_MESSAGE
      ? `${names.slice(0, MAX_NAMES_IN_MESSAGE).join(", ")}, … (${names.length} in all; Skill(action="list") lists them)`
      : names.join(", ")
  // A front-matter name other than the folder's only labels the skill (as in Claude Code): say which skill it labels.
  const labelled = catalog.skills.find((s) => s.displayName?.toLowerCase() === name)
  const label = labelled ? ` '${name}' is the display name of the skill '${labelled.name}' (its folder's name), which loads by that name.` : ""
  return toolError("NOT_FOUND", `Unknown skill '${name}'.${label} ${names.length > 0 ? `Available skills: ${shown}.` : "No skills are available."}`, {
    hints: [
      ...(labelled ? [hint("Skill", "high", { action: "load", name: labelled.name })] : []),
      ...closest.filter((c) => c.n !== labelled?.name).map((c) => hint("Skill", "high", { action: "load", name: c.n })),
      hint("Skill", "medium", { action: "list" }),
    ],
  })
}
