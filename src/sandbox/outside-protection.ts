import { join } from "node:path"
import { claudeConfigFolder } from "../workspace/state-dir.ts"
import { expandPath, inside, projectProtection, protectionGuard, real } from "./protected-paths.ts"

/**
 * The files of Claude Code's config folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) that make code run outside the
 * sandbox later: its settings' hooks, and the plugins, agents, commands, skills and hooks anvil (and Claude Code)
 * load from there at the next start. A trailing slash marks a folder.
 */
const CLAUDE_CONFIG_ENTRIES: ReadonlyArray<string> = ["settings.json", "settings.local.json", "plugins/", "agents/", "commands/", "skills/", "hooks/"]

/** The guarded places of Claude Code's config folder, absolute, a trailing slash marking a folder. */
export const claudeConfigEntries = (folder: string | undefined): ReadonlyArray<string> =>
  folder === undefined ? [] : CLAUDE_CONFIG_ENTRIES.map((e) => `${join(folder, e)}${e.endsWith("/") ? "/" : ""}`)

/**
 * The protected paths of every writable folder outside the project (`sandbox.writable`, `--add-dir`): the same
 * built-in list the project has (git hooks and config, .claude/, .anvil/, anvil.json, .mcp.json, hook managers'
 * files; protected-paths.ts), found in each folder as it is on disk, absolute. A folder inside the project or the
 * session's folder is left out (the project's own protection covers it); one holding the project is judged too.
 */
export const addedFolderEntries = (folders: ReadonlyArray<string>, root: string, keep: ReadonlyArray<string>, home: string | undefined): ReadonlyArray<string> =>
  folders
    .filter((f) => !keep.some((k) => inside(f, k)))
    .flatMap((folder) =>
      projectProtection(folder, home, []).entries.map((e) => {
        const abs = expandPath(e.endsWith("/") ? e.slice(0, -1) : e, folder, home)
        return e.endsWith("/") ? `${abs}/` : abs
      }),
    )
    .filter((e) => !inside(root, e.replace(/\/$/, "")))

/**
 * The protected entry, as an absolute path (a trailing `/` marking a folder), that covers any of `paths` in a folder
 * outside the project the file tools may reach (`folders`: `--add-dir`, `sandbox.allow`) or in Claude Code's config
 * folder, or anvil's own state folders: the same places a confined command may not change there. Undefined when none does.
 */
export const outsideEntryCovering = (
  paths: ReadonlyArray<string>,
  folders: ReadonlyArray<string>,
  root: string,
  home: string | undefined,
  claudeConfigDir: string | undefined,
  anvilState: ReadonlyArray<string> = [],
): string | undefined => {
  const wanted = paths.map((p) => p.toLowerCase())
  const covers = (place: string) => [place, real(place)].some((at) => at !== undefined && wanted.some((p) => inside(p, at.toLowerCase())))
  // anvil's own settings (anvil.json, trust.json, plugins) and cache (the read-rule walks, nested-git stamps): a planted
  // one would loosen every later session, so no file tool writes there, as no confined command can (anvil-state.ts).
  // A path inside the project is not in them (a realpath each only for one outside it).
  const state = paths.every((p) => inside(p, root)) ? undefined : anvilState.find((folder) => !inside(root, folder) && covers(folder))
  if (state !== undefined) return `${state}/`
  // Every write asks: its entries (a realpath each) are looked at only for a path inside the folder.
  const claudeFolder = claudeConfigFolder(home, claudeConfigDir ? { CLAUDE_CONFIG_DIR: claudeConfigDir } : {})
  const claude = claudeFolder !== undefined && covers(claudeFolder) ? claudeConfigEntries(claudeFolder).find((e) => covers(e.replace(/\/$/, ""))) : undefined
  if (claude !== undefined) return claude
  for (const folder of folders) {
    if (inside(folder, root) || !wanted.some((p) => inside(p, folder.toLowerCase()))) continue
    const entry = protectionGuard(projectProtection(folder, home, []), folder, home).coveringEntry(paths)
    if (entry !== undefined) return `${expandPath(entry.replace(/\/$/, ""), folder, home)}${entry.endsWith("/") ? "/" : ""}`
  }
  return undefined
}
