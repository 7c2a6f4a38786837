import { basename } from "node:path"
import { showPath } from "./policy.ts"
import type { RuleMask } from "./settings.ts"

/** A line that says a command could not read, find or write something (git's: a hidden tracked file is a device file to it). */
const FAILED =
  /no such file|permission denied|not found|cannot (?:open|find|access|stat|create|hash)|can't (?:open|find|create)|ENOENT|EACCES|not a directory|read-only file system|EROFS|no module named|module not found|could not find|is empty|can only add regular files|unsupported file type|unable to (?:unlink|index)/i

/** A runtime that fails to load a package names the package, not the folder it looked in. */
const MISSING_MODULE = /cannot find module|module not found|modulenotfounderror|no module named|cannot find package|err_module_not_found/i

/** Folders of installed packages, which such a failure is about when a rule hides one. */
const PACKAGE_FOLDERS = new Set(["node_modules", ".venv", "venv", "site-packages", "vendor"])

const EDGE = /[\s'"`(:=,[<]/

/** Whether `line` names the root-relative `rel` as a path of its own (not `xnode_modules`, not `a.env.example`). */
const names = (line: string, rel: string): boolean => {
  for (let i = line.indexOf(rel); i >= 0; i = line.indexOf(rel, i + 1)) {
    const before = i === 0 ? " " : line[i - 1]!
    const after = line[i + rel.length] ?? " "
    if ((EDGE.test(before) || before === "/") && (EDGE.test(after) || /[/)\]>.;]/.test(after))) {
      // `./x` and `x.` are a path followed by punctuation; `x.example` is another name.
      if (after === "." && /\w/.test(line[i + rel.length + 1] ?? "")) continue
      return true
    }
  }
  return false
}

/**
 * The place a `read` rule hides that a failed line of a command's output is about: its absolute or root-relative
 * path on the line, or, for a package that would not load, a hidden package folder. Undefined when none is.
 */
export const maskedOnLine = (masks: ReadonlyArray<RuleMask>, root: string, line: string): RuleMask | undefined => {
  if (masks.length === 0 || !FAILED.test(line)) return undefined
  // The longest name first: `app/.env` on the line is that place, not the root's `.env`.
  const longest = [...masks].sort((a, b) => b.path.length - a.path.length)
  const named = longest.find((m) => line.includes(m.path) || names(line, showPath(root, m.path)))
  if (named) return named
  return MISSING_MODULE.test(line) ? masks.find((m) => PACKAGE_FOLDERS.has(basename(m.path))) : undefined
}

/** A git command that stopped at a hidden file: it cannot stage or hash what is no regular file. */
export const GIT_STOPPED = /can only add regular files|unsupported file type|unable to (?:index|hash)|cannot hash/i

/**
 * What the bash answer says about a place a `read` rule hides from commands: what a command finds there, the rule,
 * its level (an ask rule hides as a deny rule does), and the way out for what failed — a git command that stops at
 * the hidden file is given the paths to name instead; for anything else, most such rules on a dependency or build
 * folder are meant to keep anvil's own tools out of it (which the search tools' ignore lists already do), not to
 * break the build.
 */
export const maskedRefusal = (root: string, mask: RuleMask, dir: boolean, line = "") => {
  const shown = showPath(root, mask.path)
  const entry = dir ? `${shown}/` : shown
  const found = dir
    ? "an empty read-only folder (nothing it holds is there)"
    : "a device file that cannot be opened: reading or writing it fails with Permission denied, and git sees its type changed"
  const level =
    mask.level === "ask"
      ? `the read ask rule ${mask.rule} (a command cannot stop to ask, so an ask rule hides as a deny rule does)`
      : `the read deny rule ${mask.rule}`
  const next = GIT_STOPPED.test(line)
    ? `Stage by name what you mean to (git add src/ …, or git add -u for tracked files) rather than everything; ${shown} is left out, and a file commands should not read belongs in .gitignore.`
    : `If the rule only means to keep anvil's tools out, sandbox.allow_read: ["${entry}"] (the user's own settings; a project's once trusted) ` +
      `gives it back to commands; else run this one command with sandbox: false (the user is asked and must agree).`
  return {
    kind: "masked" as const,
    subject: shown,
    message: `The sandbox hides ${shown} from commands: to a command it is ${found}, because of ${level}. ${next}`,
  }
}
