import { Effect } from "effect"
import { isAbsolute } from "node:path"
import type { ResolvedPath } from "../workspace/workspace.ts"
import { Workspace } from "../workspace/workspace.ts"
import { WorkspaceError } from "../workspace/workspace-error.ts"
import { projectProtection, protectedPathOf } from "./protected-paths.ts"

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
    const entry = protectedPathOf(projectProtection(root, home, extra), root, home, [resolved.absolute, resolved.real])
    if (entry === undefined) return
    const own = extra.includes(entry)
    // An entry found through git's config is absolute: shown from the root, as the others are.
    const shown = isAbsolute(entry) ? `${workspace.display(entry.replace(/\/$/, ""))}${entry.endsWith("/") ? "/" : ""}` : entry
    const nextStep = own
      ? `It is listed in sandbox.protected of anvil.json; if it should change, the user can take it out of that list or edit the file themselves.`
      : `If it really should change, ask the user: they can edit it themselves, or approve a bash command run with sandbox: false (a person approves each one).`
    return yield* new WorkspaceError({
      reason: "protected",
      message:
        `Access denied: ${resolved.display} is a protected path (${shown}): it makes code run later (git hooks, settings other programs act on), ` +
        `so the file tools do not change it, as confined commands cannot.${after} ${nextStep}`,
      field: { name: field, problem: `protected path (${shown})` },
      path: resolved.display,
      hints: [],
      protectedPath: { entry: shown, next_step: nextStep },
    })
  })
