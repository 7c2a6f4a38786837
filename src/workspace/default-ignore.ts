/**
 * Names a directory listing hides by default (spec 003 LS `DEFAULT_IGNORE`):
 * dependency, cache, build-output and editor folders that are rarely what a
 * model is looking for. Shown with include_hidden; `tools.list.default_ignore`
 * in anvil.json replaces the list.
 */
export const DEFAULT_IGNORED_NAMES: ReadonlyArray<string> = [
  "node_modules",
  "__pycache__",
  ".git",
  ".svn",
  ".hg",
  ".vscode",
  ".idea",
  "build",
  "dist",
  "venv",
  ".venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".ruff_cache",
  ".DS_Store",
]
