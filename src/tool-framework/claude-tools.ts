/**
 * Claude Code's tool names and input fields.
 *
 * Models trained on Claude Code call `Read` with `file_path` and a 1-based
 * `offset`, `Grep` case-sensitively, and so on; programs written for the
 * Claude Agent SDK see tools under those names (`can_use_tool`, hook inputs,
 * `allowedTools` rules, `permission_denials`, `system`/`init`'s tool list).
 * anvil runs its own tools underneath; this table translates both ways. The
 * registry resolves the names and the runner translates a call's fields, so
 * every caller (the agent loop, `anvil tool`, the SDK host, a hook's
 * `updatedInput`) gets the same answer for the same call. Tools without a
 * counterpart keep anvil's name.
 */

import { isRecord } from "../protocol/is-record.ts"
import { unwrapToolName } from "./model-tool-name.ts"

type Input = Record<string, unknown>

/** One Claude tool and the anvil tool behind it. */
export interface ClaudeTool {
  /** Claude Code's name ("Bash"). */
  readonly claude: string
  /** anvil's tool ("bash"). */
  readonly anvil: string
  /** Every input field Claude's tool has. */
  readonly fields: ReadonlyArray<string>
  /** Those of `fields` anvil's tool has no parameter of that name for: one of them marks a call as written for Claude's tool. */
  readonly only: ReadonlyArray<string>
  /** A call as the host or a Claude-trained model writes it → anvil's parameters. */
  readonly toAnvil: (input: Input) => Input
  /** anvil's parameters → the input a host expects to see. */
  readonly toClaude: (params: Input) => Input
  /** Another Claude name for the same anvil tool (an older or later one): understood, but never shown to a host. */
  readonly alias?: true
}

const pick = (from: Input, rename: Readonly<Record<string, string>>, drop: ReadonlyArray<string> = []): Input => {
  const out: Input = {}
  for (const [k, v] of Object.entries(from)) {
    if (v === undefined || drop.includes(k)) continue
    out[rename[k] ?? k] = v
  }
  return out
}
const invert = (m: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([a, b]) => [b, a]))

/** A tool whose fields only differ by name. */
const renamed = (claude: string, anvil: string, rename: Readonly<Record<string, string>>, fields: ReadonlyArray<string>, only: ReadonlyArray<string> = Object.keys(rename)): ClaudeTool => {
  const back = invert(rename)
  return { claude, anvil, fields, only, toAnvil: (i) => pick(i, rename), toClaude: (p) => pick(p, back) }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined)

/** Claude's Read counts `offset` as the first line to show (1-based); anvil's counts lines skipped. */
const read: ClaudeTool = {
  claude: "Read",
  anvil: "read",
  fields: ["file_path", "offset", "limit", "pages", "allow_large"],
  only: ["file_path", "pages", "allow_large"],
  toAnvil: ({ file_path, offset, limit, ...rest }) => {
    const start = num(offset)
    return pick({ ...rest, path: file_path ?? rest.path, offset: start === undefined ? undefined : Math.max(0, start - 1), limit }, {})
  },
  toClaude: ({ path, offset, limit, ...rest }) => {
    const skip = num(offset)
    return pick({ ...rest, file_path: path, offset: skip === undefined ? undefined : skip + 1, limit }, {})
  },
}

const bash: ClaudeTool = {
  claude: "Bash",
  anvil: "bash",
  fields: ["command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"],
  only: ["timeout", "dangerouslyDisableSandbox"],
  toAnvil: ({ command, timeout, description, dangerouslyDisableSandbox, ...rest }) =>
    pick({ ...rest, command, timeout_ms: timeout, description, ...(dangerouslyDisableSandbox === true ? { sandbox: false } : {}) }, {}),
  toClaude: ({ command, timeout_ms, description, sandbox, ...rest }) =>
    pick({ ...rest, command, timeout: timeout_ms, description, ...(sandbox === false ? { dangerouslyDisableSandbox: true } : {}) }, {}),
}

/** Claude's Grep is case-sensitive unless `-i`; anvil's is case-insensitive unless `case_sensitive`. */
const grep: ClaudeTool = {
  claude: "Grep",
  anvil: "grep",
  fields: ["pattern", "path", "glob", "output_mode", "-B", "-A", "-C", "context", "-n", "-i", "-o", "type", "head_limit", "offset", "multiline"],
  only: ["glob", "-B", "-A", "-C", "-n", "-i", "-o", "type", "head_limit", "offset", "multiline"],
  toAnvil: ({ glob, "-i": ignoreCase, "-A": after, "-B": before, "-C": ctx, context, head_limit, "-n": _n, type, multiline: _m, offset: _o, "-o": _only, ...rest }) =>
    pick(
      {
        ...rest,
        include: glob ?? (typeof type === "string" ? `*.${type}` : undefined),
        case_sensitive: ignoreCase !== true,
        after_context: after,
        before_context: before,
        context: ctx ?? context,
        max_matches: head_limit,
      },
      {},
    ),
  toClaude: ({ include, case_sensitive, after_context, before_context, context, max_matches, ...rest }) =>
    pick(
      { ...rest, glob: include, "-i": case_sensitive === true ? undefined : true, "-A": after_context, "-B": before_context, "-C": context, head_limit: max_matches },
      {},
    ),
}

const TASK_FIELDS = ["description", "prompt", "subagent_type", "model", "effort", "run_in_background", "name", "team_name", "mode", "isolation"]
const task: ClaudeTool = {
  claude: "Task",
  anvil: "task",
  fields: TASK_FIELDS,
  only: TASK_FIELDS,
  toAnvil: ({ prompt, description, subagent_type, ...rest }) => {
    const objective = typeof prompt === "string" ? prompt : typeof description === "string" ? description : undefined
    const known = { ...rest }
    for (const k of TASK_FIELDS) delete known[k]
    return pick({ ...known, objective, agent: subagent_type === "general-purpose" ? undefined : subagent_type }, {})
  },
  toClaude: ({ objective, agent, ...rest }) => pick({ ...rest, description: typeof objective === "string" ? objective.slice(0, 60) : undefined, prompt: objective, subagent_type: agent }, {}),
}

const todoWrite: ClaudeTool = {
  claude: "TodoWrite",
  anvil: "todowrite",
  fields: ["todos"],
  only: [],
  // Claude's items carry `activeForm` (the label its interface shows while a task runs), which anvil's list has no
  // field for: dropped on the way in (anvil's decoder refuses unknown fields), the content on the way out.
  toAnvil: ({ todos, ...rest }) => ({ ...rest, todos: Array.isArray(todos) ? todos.map((t) => (isRecord(t) ? pick(t, {}, ["activeForm"]) : t)) : todos }),
  toClaude: ({ todos, ...rest }) => ({
    ...rest,
    todos: Array.isArray(todos) ? todos.map((t) => (isRecord(t) && t.activeForm === undefined && typeof t.content === "string" ? { ...t, activeForm: t.content } : t)) : todos,
  }),
}

/** Claude's WebFetch answers its `prompt` with a second model; anvil puts the prompt above the page (tools/fetch.ts). */
const webFetch: ClaudeTool = {
  claude: "WebFetch",
  anvil: "fetch",
  fields: ["url", "prompt", "offset"],
  only: ["offset"],
  toAnvil: ({ url, prompt, offset: _offset, ...rest }) => pick({ ...rest, url, prompt }, {}),
  toClaude: ({ url, prompt }) => ({ url, prompt: typeof prompt === "string" ? prompt : "" }),
}

/** Claude Code's later name for BashOutput: it waits for the command to end unless `block` is false. */
const taskOutput: ClaudeTool = {
  claude: "TaskOutput",
  anvil: "bash_output",
  fields: ["task_id", "block", "timeout"],
  only: ["task_id", "timeout"],
  toAnvil: ({ task_id, block, timeout, ...rest }) => pick({ ...rest, id: task_id ?? rest.id, block: block ?? true, timeout_ms: timeout }, {}),
  toClaude: ({ id, block, timeout_ms, ...rest }) => pick({ ...rest, task_id: id, block, timeout: timeout_ms }, {}),
  alias: true,
}

/** Every Claude tool anvil has a counterpart for. */
export const CLAUDE_TOOLS: ReadonlyArray<ClaudeTool> = [
  bash,
  read,
  renamed("Write", "write", { file_path: "path" }, ["file_path", "content"]),
  renamed("Edit", "edit", { file_path: "path" }, ["file_path", "old_string", "new_string", "replace_all"]),
  renamed("MultiEdit", "multiedit", { file_path: "path" }, ["file_path", "edits"]),
  renamed("Glob", "glob", {}, ["pattern", "path"]),
  grep,
  renamed("LS", "list", {}, ["path", "ignore"]),
  webFetch,
  todoWrite,
  task,
  renamed("AskUserQuestion", "question", {}, ["questions"]),
  renamed("Skill", "skill", { skill: "name" }, ["skill", "args"]),
  // Background commands: a host sees the names the tools' titles carry; Claude Code's later names are understood.
  renamed("BashOutput", "bash_output", { bash_id: "id" }, ["bash_id", "filter"], ["bash_id"]),
  taskOutput,
  renamed("KillShell", "bash_stop", { shell_id: "id" }, ["shell_id"]),
  { ...renamed("TaskStop", "bash_stop", { task_id: "id", shell_id: "id" }, ["task_id", "shell_id"]), alias: true },
]

// Case matters: "Read" is Claude's tool (1-based offset, file_path), "read" is anvil's.
const byClaude = new Map(CLAUDE_TOOLS.map((t) => [t.claude, t]))
const byAnvil = new Map(CLAUDE_TOOLS.filter((t) => t.alias !== true).map((t) => [t.anvil, t]))

/** The Claude name a host sees for an anvil tool (anvil-only tools keep their names). */
export const claudeName = (anvil: string): string => byAnvil.get(anvil)?.claude ?? anvil

/** The anvil tool behind a name a host or a model used; names without a counterpart come back as they are. */
export const anvilName = (name: string): string => byClaude.get(name)?.anvil ?? name

// Rules and flags name a tool without regard to case, as tools are found: `WEBFETCH` is fetch there.
const byClaudeLower = new Map(CLAUDE_TOOLS.map((t) => [t.claude.toLowerCase(), t.anvil]))

/** The anvil tool a rule's or flag's tool name stands for, lower-cased: Claude's name in any case, else the name itself. */
export const ruleToolName = (name: string): string => byClaudeLower.get(name.toLowerCase()) ?? name.toLowerCase()

/** Whether `name` is one of Claude Code's tool names that anvil answers. */
export const isClaudeName = (name: string): boolean => byClaude.has(name)

/** Parameters of an anvil call as the host sees them. */
export const toClaudeInput = (anvil: string, params: Input): Input => byAnvil.get(anvil)?.toClaude(params) ?? params

/**
 * Whether an input under Claude's name for `tool` is written for Claude's tool: it names a field only Claude's tool
 * has (`file_path`, `-i`), or nothing but Claude's fields. A call in anvil's own fields under the same name (`Read`
 * with `path`, as anvil's hints write it) keeps anvil's meaning.
 */
const writtenForClaude = (tool: ClaudeTool, input: Input): boolean => {
  const keys = Object.keys(input)
  return keys.some((k) => tool.only.includes(k)) || keys.every((k) => tool.fields.includes(k))
}

/**
 * An input written with Claude's fields for a Claude tool name → anvil's parameters; anything else comes back as
 * it is. A field in anvil's own name beside Claude's (`Grep` with `-i` and `include`) is kept where the
 * translation has nothing for it.
 */
export const toAnvilInput = (name: string, input: Input): Input => {
  const tool = byClaude.get(name)
  if (!tool || !writtenForClaude(tool, input)) return input
  const translated = tool.toAnvil(input)
  for (const [k, v] of Object.entries(input)) if (v !== undefined && !tool.fields.includes(k) && translated[k] === undefined) translated[k] = v
  return translated
}

/**
 * The parameters a call under `name` runs with, once the registry resolved the name to `resolved` (the tool's own
 * name): a Claude name whose counterpart that is gets Claude's fields translated (Read's 1-based `offset`, Grep's
 * case-sensitive default); a tool that is itself named `Read` (a plugin's) keeps its call.
 */
export const callParams = (name: string, resolved: string, params: unknown): unknown => {
  const claude = byClaude.has(name) ? name : unwrapToolName(name)
  return claude !== undefined && byClaude.get(claude)?.anvil === resolved && isRecord(params) ? toAnvilInput(claude, params) : params
}

/**
 * A call as a host sees it: under a Claude name written for Claude's tool, as it is; otherwise under the Claude
 * name of the anvil tool with the parameters written Claude's way.
 */
export const toClaudeCall = (called: string, input: Input): { readonly name: string; readonly input: Input } => {
  // A model's wrapped name (`functions.Read`) is shown as the tool it means.
  const name = byClaude.has(called) ? called : (unwrapToolName(called) ?? called)
  const claude = byClaude.get(name)
  if (claude && writtenForClaude(claude, input)) return { name, input }
  const anvil = anvilName(name)
  return { name: claudeName(anvil), input: toClaudeInput(anvil, input) }
}
