import { readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { parseContinuedFrontMatter, SKILL_FIELDS } from "../skills/front-matter-continued.ts"
import { argumentNames, substituteArguments } from "../skills/skill-arguments.ts"
import { firstLineOf } from "../skills/skill-document.ts"
import { claudeConfigDir } from "./places.ts"
import { commandPaths, readManifestQuietly } from "./claude-components.ts"

/**
 * Claude Code's custom slash commands: Markdown prompt templates in
 * `commands/` folders (`.claude/commands/` of the project and the user, and a
 * Claude Code plugin's `commands/`). A prompt `/name args` becomes the
 * command's body with its arguments filled in as a skill's are
 * (`$ARGUMENTS`, `$0`… counted from 0, `$ARGUMENTS[N]`, front matter
 * `arguments` names); a body with none gets the arguments after it.
 * Front matter `description` and `argument-hint` describe it; `allowed-tools`
 * and `model` are not used, and neither are `!` command lines nor `@` file
 * references, which stay in the text as written.
 */
export interface SlashCommand {
  /** The file's name without `.md` (`review` for `commands/git/review.md`). */
  readonly name: string
  /** The plugin it came with (then `/plugin:name` reaches it too). */
  readonly plugin?: string
  readonly description: string
  readonly argumentHint?: string
  /** Names for its arguments in order (front matter `arguments`: `$issue`). */
  readonly argumentNames: ReadonlyArray<string>
  readonly body: string
}

/** The commands of one `commands/` folder (sub-folders included); unreadable files are left out. */
export const readCommandFolder = (dir: string, plugin?: string): Array<SlashCommand> => {
  let files: Array<string>
  try {
    files = readdirSync(dir, { recursive: true }).map(String).filter((f) => f.endsWith(".md")).sort()
  } catch {
    return []
  }
  return files.flatMap((file) => readCommandFile(join(dir, file), plugin) ?? [])
}

/** One command file; undefined when it cannot be read. */
const readCommandFile = (path: string, plugin?: string): SlashCommand | undefined => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch {
    return undefined
  }
  const parsed = text.startsWith("---") ? parseContinuedFrontMatter(text, SKILL_FIELDS) : undefined
  const fields = parsed?.ok ? parsed.fields : {}
  // Front matter that is not valid YAML is still front matter: it never reaches the model as the prompt.
  const unreadable = parsed && !parsed.ok ? /^---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(text) : null
  const body = (parsed?.ok ? parsed.body : unreadable ? text.slice(unreadable[0].length) : text).trim()
  const problem = parsed && !parsed.ok ? ` (its front matter is unreadable${parsed.line ? ` at line ${parsed.line}` : ""}: ${parsed.reason})` : ""
  return {
    name: basename(path, ".md"),
    ...(plugin !== undefined ? { plugin } : {}),
    // Without one, the first line describes it as Claude Code describes a command (a heading without its `#`s).
    description: typeof fields.description === "string" ? fields.description : `${firstLineOf(body) ?? ""}${problem}`,
    ...(typeof fields["argument-hint"] === "string" ? { argumentHint: fields["argument-hint"] } : {}),
    argumentNames: argumentNames(fields.arguments),
    body,
  }
}

/** Commands from a list of folders and `.md` files (a Claude Code plugin's `commands`), in that order. */
export const readCommandPaths = (paths: ReadonlyArray<string>, plugin?: string): Array<SlashCommand> =>
  paths.flatMap((p) => (p.endsWith(".md") ? (readCommandFile(p, plugin) ?? []) : readCommandFolder(p, plugin)))

/** A Claude Code plugin's commands (its manifest's `commands`, else `commands/`), each reachable as `/plugin:name` too. */
export const pluginCommandFolder = (pluginDir: string, plugin: string, manifest?: Record<string, unknown>): Array<SlashCommand> =>
  readCommandPaths(commandPaths(pluginDir, manifest ?? readManifestQuietly(pluginDir)), plugin)

/** The project's `.claude/commands/`, then the user's (`~/.claude/commands/`, or under `$CLAUDE_CONFIG_DIR`). */
export const localCommands = (root: string, env: Readonly<Record<string, string | undefined>>): Array<SlashCommand> => {
  const user = claudeConfigDir(env)
  return [...readCommandFolder(join(root, ".claude", "commands")), ...(user ? readCommandFolder(join(user, "commands")) : [])]
}

/** The prompt a `/name args` prompt stands for, or undefined when it names no command. The first command of a name wins. */
export const expandSlashCommand = (prompt: string, commands: ReadonlyArray<SlashCommand>): { readonly prompt: string; readonly command: SlashCommand } | undefined => {
  const m = /^\/([\w.:-]+)(?:[ \t]+([\s\S]*))?$/.exec(prompt.trim())
  if (!m) return undefined
  const command = commands.find((c) => c.name === m[1] || (c.plugin !== undefined && `${c.plugin}:${c.name}` === m[1]))
  if (!command) return undefined
  return { prompt: substituteArguments(command.body, (m[2] ?? "").trim(), { names: command.argumentNames }), command }
}
