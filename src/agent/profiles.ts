import type { Tool } from "../tool-framework/definition.ts"

export type EngineName = "native" | "react"

/**
 * An agent profile: which tools the agent gets and how it is told to work.
 * The tool sets follow each tool's `readOnly` flag plus explicit lists, so a
 * new read-only tool joins plan and explore without touching this file.
 */
export interface Profile {
  readonly name: "code" | "plan" | "explore" | "test"
  readonly description: string
  /** The tools of this profile, chosen from everything available. */
  readonly select: (all: ReadonlyArray<Tool>) => ReadonlyArray<Tool>
  /** The engine used unless one is chosen. */
  readonly engine?: EngineName
  /** What the system prompt adds for this profile. */
  readonly instructions: string
  /** Why a tool this profile leaves out is refused when the model calls it anyway, and what to do instead. */
  readonly refusal: (tool: Tool) => string
}

/** The plan-mode refusal of a tool that changes things (also said by the SDK host's `plan` permission mode). */
export const planRefusal = (title: string): string =>
  `Plan mode forbids ${title}: it can change files or run commands, and plan mode only investigates. ` +
  "Keep using the read-only tools, then answer with the plan. To carry it out the user leaves plan mode: " +
  "continue the session without --plan (anvil run --continue --profile code), or, in a Claude Agent SDK host, " +
  "leave the plan permission mode (a session started in it is resumed with another mode)."

const named = (names: ReadonlyArray<string>) => {
  const set = new Set(names)
  return (t: Tool) => set.has(t.name)
}

/** question is a plan-mode tool only; task is not given to subagents (no nesting). */
const PLAN_ONLY = named(["question"])
const SUBAGENT_EXCLUDED = named(["task", "question"])

export const PROFILES: Readonly<Record<Profile["name"], Profile>> = {
  code: {
    name: "code",
    description: "all tools: read, search, edit, run commands (the default)",
    select: (all) => all.filter((t) => !PLAN_ONLY(t)),
    instructions:
      "You are in code mode: you may read, search, edit files and run commands. " +
      "Make the change, then verify it as the project does (tests, build, type-check) when possible.",
    refusal: (tool) => `${tool.title} is a plan-mode tool and is not available in code mode; ask in your answer instead.`,
  },
  plan: {
    name: "plan",
    description: "read-only tools plus question and the todo list, for planning",
    select: (all) => all.filter((t) => t.readOnly === true || named(["question", "todowrite", "todoread", "task"])(t)),
    instructions:
      "You are in plan mode: you cannot change files or run commands. Investigate with the read-only tools, " +
      "ask the user with question when a choice is theirs, and answer with a concrete, step-by-step plan " +
      "(files to change, how, and how to verify). Keep the plan in the todo list when it has several steps.",
    refusal: (tool) => planRefusal(tool.title),
  },
  explore: {
    name: "explore",
    description: "read-only tools, no questions (the task tool's subagent)",
    select: (all) => all.filter((t) => t.readOnly === true && !SUBAGENT_EXCLUDED(t)),
    instructions:
      "You are a read-only exploration subagent working for another agent. Use the tools to find what the " +
      "objective asks for, then finish with a concise report: the facts found, with file paths and line numbers, " +
      "and nothing the other agent did not ask for. You cannot change anything and cannot ask the user.",
    refusal: (tool) =>
      `The explore subagent is read-only and cannot use ${tool.title}. Finish with your report; the calling agent makes the change or asks the user.`,
  },
  test: {
    name: "test",
    description: "a minimal agent for smoke tests (calculator and list; ReAct engine)",
    select: (all) => all.filter(named(["calculator", "list"])),
    engine: "react",
    instructions: "You are a minimal test agent. Use the tools when they help, then give the final answer.",
    refusal: (tool) => `The test profile has only calculator and list; ${tool.title} is not available. Answer with what you have.`,
  },
}

export const profileNames = Object.keys(PROFILES) as ReadonlyArray<Profile["name"]>

export const profileOf = (name: string): Profile | undefined => (Object.hasOwn(PROFILES, name) ? PROFILES[name as Profile["name"]] : undefined)
