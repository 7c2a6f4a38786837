// Apart from ignore-rules.ts: the command sandbox's walk (permission/mask-walk.ts) needs the list, not the ignore files.
/** Directory names skipped unless ignored entries are asked for (`search.default_ignore` and `tools.list.default_ignore` replace it). */
export const DEFAULT_IGNORED_DIRS: ReadonlyArray<string> = [
  ".git",
  ".svn",
  ".hg",
  "node_modules",
  "__pycache__",
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
]
