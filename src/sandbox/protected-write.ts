import { Context, Effect, Option } from "effect"
import { isAbsolute } from "node:path"
import { hint } from "../protocol/hint.ts"
import type { ResolvedPath } from "../workspace/workspace.ts"
import { Workspace } from "../workspace/workspace.ts"
import { WorkspaceError } from "../workspace/workspace-error.ts"
import { outsideEntryCovering } from "./outside-protection.ts"
import { projectProtection, protectionGuard, type ProtectionGuard } from "./protected-paths.ts"

/** Where one call keeps the protection its checks share (see {@link CallProtection}). */
export interface ProtectionCell {
  guard?: ProtectionGuard
}

/**
 * The protected paths one call judges its paths by, found by the first check and reused by the rest: a file tool
 * provides one cell to its precheck and its run (src/tools/call-protection.ts), so a patch naming twenty files
 * reads git's config and follows the entries' links once, not once per path and step. Without a cell (a plugin's
 * `files.write`) each check finds them anew.
 */
export const CallProtection = Context.Reference<ProtectionCell | undefined>("anvil/CallProtection", { defaultValue: () => undefined })

/**
 * git's own folder is git's: its hooks and config run code at the user's next git command, outside every
 * sandbox, so the file tools never write there, nor read through the edit tools' path (patch and grep keep
 * out of it too). Fails with an `outside_root` WorkspaceError for a path inside `.git`, as named or resolved.
 */
export const refuseInsideGit = (resolved: ResolvedPath, field: string) =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    if (!resolved.display.split("/").includes(".git") && !workspace.display(resolved.real).split("/").includes(".git")) return
    return yield* new WorkspaceError({
      reason: "outside_root",
      message: `Access denied: ${resolved.display} is inside .git, git's own folder; the file tools do not change it (hooks and config there run code). Use git's commands for git's settings.`,
      field: { name: field, problem: "inside .git" },
      hints: [hint("Bash", "medium", { command: "git status" })],
    })
  })

/**
 * Fails with a `protected` WorkspaceError when a file tool is about to change (write, replace, remove, rename
 * onto) a path the command sandbox keeps read-only: git hooks and config, anvil.json, `.anvil/`, `.mcp.json`,
 * `.claude/`, `.vscode/`, hook managers' files, `sandbox.protected` (see protected-paths.ts). The path is
 * judged as named and as resolved (links followed, `..` gone), without case. anvil's own state under `.anvil/`
 * (sessions, todos, spill files, the journal) is written by anvil itself, never through here.
 */
export const refuseProtected = (resolved: ResolvedPath, field: string, after = "") =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const { extra, home } = workspace.protection
    const root = workspace.root
    const cell = yield* CallProtection
    const guard = cell?.guard ?? protectionGuard(projectProtection(root, home, extra), root, home)
    if (cell) cell.guard = guard
    const { folders, claudeConfigDir, anvilState } = workspace.protection
    const entry =
      guard.coveringEntry([resolved.absolute, resolved.real]) ??
      outsideEntryCovering([resolved.absolute, resolved.real], folders ?? [], root, home, claudeConfigDir, anvilState)
    if (entry === undefined) return
    const own = extra.includes(entry)
    // An entry found through git's config is absolute: shown from the root, as the others are.
    const shown = isAbsolute(entry) ? `${workspace.display(entry.replace(/\/$/, ""))}${entry.endsWith("/") ? "/" : ""}` : entry
    const state = (anvilState ?? []).some((folder) => `${folder}/` === entry)
    const what = state
      ? `it is anvil's own settings and state (a planted setting, trust record or walk record there would loosen later sessions)`
      : `it makes code run later (git hooks, settings other programs act on)`
    // The entry is named only when it is not the path itself (a folder holding it, a link's target): once is plain.
    const which = shown === resolved.display ? "" : ` (${shown})`
    const nextStep = own
      ? `It is listed in sandbox.protected of anvil.json; if it should change, the user can take it out of that list or edit the file themselves.`
      : `If it really should change, ask the user: they can edit it themselves, or approve a bash command run with sandbox: false (a person approves each one).`
    return yield* new WorkspaceError({
      reason: "protected",
      message:
        `Access denied: ${resolved.display} is a protected path${which}: ${what}, ` +
        `so the file tools do not change it, as confined commands cannot.${after} ${nextStep}`,
      field: { name: field, problem: `protected path${which}` },
      path: resolved.display,
      hints: [],
      protectedPath: { entry: shown, next_step: nextStep },
    })
  })

/**
 * {@link refuseInsideGit} and {@link refuseProtected} for a path as a call names it, before the call is run (a
 * tool's precheck): a path that does not resolve is left for the call itself to report.
 */
export const refuseProtectedPath = (input: string, field: string, after = "") =>
  Effect.gen(function* () {
    const workspace = yield* Workspace
    const resolved = yield* Effect.option(workspace.resolve(input, field))
    if (Option.isNone(resolved)) return
    yield* refuseInsideGit(resolved.value, field)
    yield* refuseProtected(resolved.value, field, after)
  })
