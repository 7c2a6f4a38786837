import type { Tool } from "../tool-framework/definition.ts"

/**
 * A built-in tool's catalogue entry: the names that reach it and a loader.
 * Loading is lazy so that `anvil tool read` imports the read tool and not the
 * git, fetch or patch engines (it halves the start-up of a one-tool call).
 * A test checks that `names` are exactly the tool's name, title and aliases.
 */
export interface BuiltinToolEntry {
  readonly names: ReadonlyArray<string>
  readonly load: () => Promise<Tool>
}

/** Every built-in tool, in the order `anvil tools` lists them. */
export const builtinToolEntries: ReadonlyArray<BuiltinToolEntry> = [
  { names: ["read", "Read", "read_file", "view", "cat"], load: async () => (await import("./read.ts")).readTool },
  { names: ["list", "LS", "ls", "list_files", "list_dir", "list_directory"], load: async () => (await import("./list.ts")).listTool },
  { names: ["calculator", "Calculator", "python_calculator", "calc"], load: async () => (await import("./calculator.ts")).calculatorTool },
  { names: ["glob", "Glob", "search_files_by_name", "find_files"], load: async () => (await import("./glob.ts")).globTool },
  { names: ["grep", "Grep", "search_code", "search_content", "rg"], load: async () => (await import("./grep.ts")).grepTool },
  { names: ["patch", "Patch", "apply_patch", "apply_diff", "applypatch"], load: async () => (await import("./patch.ts")).patchTool },
  { names: ["write", "Write", "write_file", "create_file"], load: async () => (await import("./write.ts")).writeTool },
  { names: ["edit", "Edit", "edit_file", "str_replace"], load: async () => (await import("./edit.ts")).editTool },
  { names: ["multiedit", "MultiEdit", "multi_edit"], load: async () => (await import("./multiedit.ts")).multieditTool },
  { names: ["bash", "Bash", "shell", "run_command", "execute_command"], load: async () => (await import("./bash.ts")).bashTool },
  { names: ["bash_output", "BashOutput", "TaskOutput", "bash_status"], load: async () => (await import("./bash_output.ts")).bashOutputTool },
  { names: ["bash_stop", "KillShell", "TaskStop", "KillBash", "bash_kill", "kill_shell"], load: async () => (await import("./bash_stop.ts")).bashStopTool },
  { names: ["todoread", "TodoRead", "todo_read"], load: async () => (await import("./todoread.ts")).todoreadTool },
  { names: ["todowrite", "TodoWrite", "todo_write"], load: async () => (await import("./todowrite.ts")).todowriteTool },
  { names: ["git_status", "GitStatus"], load: async () => (await import("./git_status.ts")).gitStatusTool },
  { names: ["git_diff", "GitDiff"], load: async () => (await import("./git_diff.ts")).gitDiffTool },
  { names: ["git_log", "GitLog"], load: async () => (await import("./git_log.ts")).gitLogTool },
  { names: ["git_add", "GitAdd"], load: async () => (await import("./git_add.ts")).gitAddTool },
  { names: ["git_commit", "GitCommit"], load: async () => (await import("./git_commit.ts")).gitCommitTool },
  { names: ["lsp_diagnostics", "LspDiagnostics", "diagnostics"], load: async () => (await import("./lsp_diagnostics.ts")).lspDiagnosticsTool },
  { names: ["lsp_definition", "LspDefinition", "definition", "goto_definition"], load: async () => (await import("./lsp_definition.ts")).lspDefinitionTool },
  { names: ["lsp_hover", "LspHover", "hover"], load: async () => (await import("./lsp_hover.ts")).lspHoverTool },
  { names: ["fetch", "WebFetch", "webfetch", "web_fetch"], load: async () => (await import("./fetch.ts")).fetchTool },
  { names: ["question", "AskUserQuestion", "ask_user_question"], load: async () => (await import("./question.ts")).questionTool },
  { names: ["task", "Task", "subagent", "agent"], load: async () => (await import("./task.ts")).taskTool },
  { names: ["skill", "Skill", "skills", "load_skill"], load: async () => (await import("./skill.ts")).skillTool },
]

/** Loads every built-in tool (the agent offers them all). */
export const loadBuiltinTools = (): Promise<ReadonlyArray<Tool>> => Promise.all(builtinToolEntries.map((e) => e.load()))

/** Loads the one built-in tool a name reaches (case-insensitive), or undefined. */
export const loadBuiltinTool = async (name: string): Promise<Tool | undefined> => {
  const key = name.trim().toLowerCase()
  const entry = builtinToolEntries.find((e) => e.names.some((n) => n.toLowerCase() === key))
  return entry ? entry.load() : undefined
}
