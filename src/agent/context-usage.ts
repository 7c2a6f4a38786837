import type { LanguageModelShape } from "../llm/model.ts"
import type { Tool } from "../tool-framework/definition.ts"
import type { ToolRegistry } from "../tool-framework/registry.ts"
import { toNativeMessages, toReactMessages, estimateTokens, type HistoryItem } from "./history.ts"
import type { PromptFacts } from "./system-prompt.ts"
import { collectLoaded, offeredSpecs, toolSpec, type ToolOffer } from "./tool-offer.ts"

/**
 * What a session's next model request would hold, by part, in tokens estimated as compaction estimates them (about
 * four characters a token): the system prompt and the project's instruction files and skill list inside it, each
 * tool's definition (offered, or waiting to be loaded on demand), the conversation. For the Agent SDK's
 * getContextUsage().
 */
export interface ContextUsage {
  readonly model: string
  readonly window: number
  /** The estimate at which compaction runs. */
  readonly compactAt: number
  /** The system prompt less the instruction files and the skill list. */
  readonly systemPrompt: number
  readonly memoryFiles: ReadonlyArray<{ readonly path: string; readonly tokens: number }>
  readonly skills: ReadonlyArray<{ readonly name: string; readonly tokens: number }>
  readonly tools: ReadonlyArray<{ readonly name: string; readonly tokens: number; readonly offered: boolean }>
  readonly messages: number
}

export interface ContextParts {
  /** The system prompt as the next request sends it. */
  readonly system: string
  readonly facts: PromptFacts
  readonly items: ReadonlyArray<HistoryItem>
  readonly registry: ToolRegistry
  readonly loaded: ReadonlySet<string>
  readonly offer: ToolOffer
  readonly react: boolean
  readonly model: LanguageModelShape
  /** Compaction's threshold, a fraction of the window. */
  readonly threshold: number
}

const tokensOf = (text: string): number => Math.ceil(text.length / 4)

export const measureContext = (parts: ContextParts): ContextUsage => {
  const { facts, registry } = parts
  const files = facts.projectInstructionFiles ?? []
  const instructions = facts.projectInstructions ?? ""
  // Each file's own size when known, else an even share of the instructions' text.
  const fileChars = facts.projectInstructionChars ?? files.map(() => instructions.length / Math.max(1, files.length))
  const memoryFiles = files.map((path, i) => ({ path, tokens: Math.ceil((fileChars[i] ?? 0) / 4) }))
  const skills = (facts.skills ?? []).map((k) => ({ name: k.name, tokens: tokensOf(`- ${k.name}: ${k.description}\n`) }))
  const loaded = collectLoaded(parts.items, registry, new Set(parts.loaded))
  const offered = new Set(offeredSpecs(registry.tools, loaded, parts.offer).map((s) => s.name))
  const tools = registry.tools.map((t: Tool) => ({ name: t.name, tokens: tokensOf(JSON.stringify(toolSpec(t))), offered: offered.has(t.name) }))
  const inPrompt = [...memoryFiles, ...skills].reduce((n, p) => n + p.tokens, 0)
  const messages = estimateTokens("", parts.react ? toReactMessages(parts.items) : toNativeMessages(parts.items), "")
  return {
    model: parts.model.id,
    window: parts.model.contextWindow,
    compactAt: Math.floor(parts.model.contextWindow * parts.threshold),
    systemPrompt: Math.max(0, tokensOf(parts.system) - inPrompt),
    memoryFiles,
    skills,
    tools,
    messages,
  }
}
