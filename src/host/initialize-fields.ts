/**
 * What anvil does with each field of the program's `initialize` request. The fields it acts on are read where they
 * apply (control-requests.ts, session-lifecycle.ts, permission-bridge.ts); every other field that asks for something
 * is named back to the program with why (its answer's `ignored_fields`, stderr, and a `system` notice once the
 * session opens), never dropped in silence. A field the SDK sends only as a default (false, empty) asks for nothing.
 */

/** The fields acted on. */
const ACTED = new Set([
  "subtype", "hooks", "sdkMcpServers", "sdkMcpServerManifests", "sdkMcpServerManifestsOrigin", "jsonSchema",
  "systemPrompt", "appendSystemPrompt", "planModeInstructions", "appendSubagentSystemPrompt", "agents", "skills",
  "plugins", "mcpServers", "disallowedTools",
])

/** The fields anvil knows and does not act on, with why, as the program is told. */
const NOT_ACTED: Readonly<Record<string, string>> = {
  title: "anvil's sessions are named by their first prompt",
  toolAliases: "anvil resolves a tool call by the tool's own, Claude Code's and its aliases' names only",
  excludeDynamicSections: "anvil's system prompt keeps its working folder and date",
  systemPromptSnapshot: "anvil renders the system prompt as each session opens",
  codeRunningMcpTools: "anvil asks about an MCP tool as its permissions say, whatever it runs",
  webSearchIsolationExemptMcpServers: "anvil has no web search tool to isolate",
  promptSuggestions: "anvil sends no prompt suggestions",
  agentProgressSummaries: "anvil sends no progress summaries of subagents",
  forwardSubagentText: "anvil forwards a subagent's messages as it always does",
  forwardNestedSubagentToolCalls: "a subagent runs no subagents",
  supportedDialogKinds: "anvil asks the program no dialogs",
  perTaskStopAffordance: "anvil's interrupt treats background commands alike with or without it",
  rapidFollowupPreempt: "a message sent during a turn waits for it",
  offersBypassSwitchBack: "anvil does not leave bypassPermissions by itself",
  keepsBypassHeld: "anvil does not leave bypassPermissions by itself",
  workspaceTrust: "anvil trusts a project through anvil trust, not the program",
  sdkMcpServerConfigs: "the in-process servers' tools are asked about as the permissions say (no always_ask or always_deny)",
  settings: "anvil reads the settings' sandbox keys from --settings only",
}

/** Refused (the whole initialize fails): acting as if it applied would lift restrictions the program relies on. */
export const refusedInitializeField = (request: Readonly<Record<string, unknown>>): string | undefined =>
  asksNothing(request.managedSettings)
    ? undefined
    : "initialize: managedSettings cannot be applied: anvil has no policy settings, so their restrictions would silently not hold; leave them out or enforce them with disallowedTools and hooks"

/** A value that asks for nothing: absent, false, empty. */
const asksNothing = (value: unknown): boolean =>
  value === undefined || value === null || value === false || value === "" ||
  (Array.isArray(value) && value.length === 0) || (typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0)

/** The fields of `request` anvil does not act on though they ask for something, each with why. */
export const ignoredInitializeFields = (request: Readonly<Record<string, unknown>>): ReadonlyArray<{ readonly field: string; readonly why: string }> =>
  Object.entries(request)
    .filter(([field, value]) => !ACTED.has(field) && !asksNothing(value))
    .map(([field]) => ({ field, why: NOT_ACTED[field] ?? "anvil does not know this field" }))

/** One sentence naming them, for stderr and the `system` notice. */
export const ignoredFieldsMessage = (ignored: ReadonlyArray<{ readonly field: string; readonly why: string }>): string =>
  `initialize: not acted on: ${ignored.map((i) => `${i.field} (${i.why})`).join("; ")}`

/**
 * The Agent SDK's SYSTEM_PROMPT_DYNAMIC_BOUNDARY: a program marks where the cacheable part of its prompt ends, as a
 * `systemPrompt` element or a line of its own. It is a marker for Claude Code's prompt cache, not words for the model.
 */
export const CACHE_BOUNDARY = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"

/** A prompt without the boundary's lines. */
export const withoutCacheBoundary = (text: string): string =>
  text.split("\n").filter((line) => line.trim() !== CACHE_BOUNDARY).join("\n").replace(/\n{3,}/g, "\n\n").trim()
