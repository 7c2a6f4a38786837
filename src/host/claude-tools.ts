/**
 * Claude Code's tool names and input fields at the edge of the Agent SDK host.
 *
 * Programs written for the Claude Agent SDK see tools as Claude Code names
 * them (`Bash` with `command`, `Read` with `file_path` …): in `can_use_tool`
 * requests, hook inputs, `allowedTools` rules, `permission_denials` and the
 * `system`/`init` tool list. anvil runs its own tools underneath; this table
 * translates both ways. Tools without a counterpart keep anvil's name.
 */

type Input = Record<string, unknown>

/** One Claude tool and the anvil tool behind it. */
export interface ClaudeTool {
  /** Claude Code's name ("Bash"). */
  readonly claude: string
  /** anvil's tool ("bash"). */
  readonly anvil: string
  /** A call as the host or a Claude-trained model writes it → anvil's parameters. */
  readonly toAnvil: (input: Input) => Input
  /** anvil's parameters → the input a host expects to see. */
  readonly toClaude: (params: Input) => Input
}

const pick = (from: Input, rename: Readonly<Record<string, string>>): Input => {
  const out: Input = {}
  for (const [k, v] of Object.entries(from)) {
    if (v === undefined) continue
    out[rename[k] ?? k] = v
  }
  return out
}
const invert = (m: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(m).map(([a, b]) => [b, a]))

/** A tool whose fields only differ by name. */
const renamed = (claude: string, anvil: string, fields: Readonly<Record<string, string>>): ClaudeTool => {
  const back = invert(fields)
  return { claude, anvil, toAnvil: (i) => pick(i, fields), toClaude: (p) => pick(p, back) }
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined)

/** Claude's Read counts `offset` as the first line to show (1-based); anvil's counts lines skipped. */
const read: ClaudeTool = {
  claude: "Read",
  anvil: "read",
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
  toAnvil: ({ command, timeout, description, run_in_background: _bg, dangerouslyDisableSandbox, ...rest }) =>
    pick({ ...rest, command, timeout_ms: timeout, description, ...(dangerouslyDisableSandbox === true ? { sandbox: false } : {}) }, {}),
  toClaude: ({ command, timeout_ms, description, sandbox, ...rest }) =>
    pick({ ...rest, command, timeout: timeout_ms, description, ...(sandbox === false ? { dangerouslyDisableSandbox: true } : {}) }, {}),
}

/** Claude's Grep is case-sensitive unless `-i`; anvil's is case-insensitive unless `case_sensitive`. */
const grep: ClaudeTool = {
  claude: "Grep",
  anvil: "grep",
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

const task: ClaudeTool = {
  claude: "Task",
  anvil: "task",
  toAnvil: ({ prompt, description, subagent_type, ...rest }) => {
    const objective = typeof prompt === "string" ? prompt : typeof description === "string" ? description : undefined
    const known = { ...rest }
    for (const k of ["model", "effort", "run_in_background", "name", "team_name", "mode", "isolation"]) delete known[k]
    return pick({ ...known, objective, agent: subagent_type === "general-purpose" ? undefined : subagent_type }, {})
  },
  toClaude: ({ objective, agent, ...rest }) => pick({ ...rest, description: typeof objective === "string" ? objective.slice(0, 60) : undefined, prompt: objective, subagent_type: agent }, {}),
}

const todoWrite: ClaudeTool = {
  claude: "TodoWrite",
  anvil: "todowrite",
  // Claude's items carry activeForm, which anvil's list keeps as an extra key.
  toAnvil: (i) => i,
  toClaude: (p) => p,
}

const webFetch: ClaudeTool = {
  claude: "WebFetch",
  anvil: "fetch",
  toAnvil: ({ url, prompt: _prompt, offset: _offset, ...rest }) => pick({ ...rest, url }, {}),
  toClaude: ({ url }) => ({ url, prompt: "" }),
}

/** Every Claude tool anvil has a counterpart for. */
export const CLAUDE_TOOLS: ReadonlyArray<ClaudeTool> = [
  bash,
  read,
  renamed("Write", "write", { file_path: "path" }),
  renamed("Edit", "edit", { file_path: "path" }),
  renamed("MultiEdit", "multiedit", { file_path: "path" }),
  renamed("Glob", "glob", {}),
  grep,
  renamed("LS", "list", {}),
  webFetch,
  todoWrite,
  task,
  renamed("AskUserQuestion", "question", {}),
  renamed("Skill", "skill", { skill: "name" }),
]

// Case matters: "Read" is Claude's tool (1-based offset, file_path), "read" is anvil's.
const byClaude = new Map(CLAUDE_TOOLS.map((t) => [t.claude, t]))
const byAnvil = new Map(CLAUDE_TOOLS.map((t) => [t.anvil, t]))

/** The Claude name a host sees for an anvil tool (anvil-only tools keep their names). */
export const claudeName = (anvil: string): string => byAnvil.get(anvil)?.claude ?? anvil

/** The anvil tool behind a name a host or a model used; names without a counterpart come back as they are. */
export const anvilName = (name: string): string => byClaude.get(name)?.anvil ?? name

/** Whether `name` is one of Claude Code's tool names that anvil answers. */
export const isClaudeName = (name: string): boolean => byClaude.has(name)

/** Parameters of an anvil call as the host sees them. */
export const toClaudeInput = (anvil: string, params: Input): Input => byAnvil.get(anvil)?.toClaude(params) ?? params

/** An input written with Claude's fields for a Claude tool name → anvil's parameters (other names: unchanged). */
export const toAnvilInput = (name: string, input: Input): Input => byClaude.get(name)?.toAnvil(input) ?? input
