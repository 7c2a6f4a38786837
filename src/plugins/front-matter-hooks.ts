import { readFileSync } from "node:fs"
import { Effect } from "effect"
import { AGENT_FIELDS, parseContinuedFrontMatter, SKILL_FIELDS } from "../skills/front-matter-continued.ts"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import { makeTrust } from "../trust/trust.ts"
import { commandHooks } from "./claude-command-hooks.ts"
import { readHookSpecs } from "./claude-hook-specs.ts"
import type { HookEntry } from "./hook-runner.ts"
import { pathText } from "./json-part.ts"

/**
 * The `hooks:` of a skill's or an agent's front matter, written as Claude Code's hooks reference writes them
 * (`PreToolUse: [{matcher, hooks: [{type: command, command, timeout, once}]}]`), as hook entries: PreToolUse and
 * PostToolUse commands run around the calls while the skill or agent is in force (skill-hooks.ts, the subagent
 * runner), with `once: true` acted on. Those of a file that came with the repository follow the rules of the
 * project's other hooks: they run only once trusted (`anvil plugins trust skill:NAME`, or `--trust-plugins`), in
 * the command sandbox.
 */

export interface FrontMatterHooksInput {
  readonly kind: "skill" | "agent"
  readonly name: string
  /** The file whose front matter declares them (reports name it). */
  readonly file: string
  /** The front matter's `hooks` value, checked here. */
  readonly hooks: unknown
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly session: { readonly id: string; readonly transcript?: string }
  readonly onProblem: (message: string) => void
  /** Set for a project's own file: its commands run in the command sandbox. */
  readonly confine?: CommandConfinement
}

/** The trust subject of a project's skill or agent with hooks: its folder (a skill's) or its file (an agent's). */
export const frontMatterHookSubject = (kind: "skill" | "agent", name: string, path: string) => ({ kind: "plugin", name: `${kind}:${name}`, content: { path } }) as const

/**
 * Whether a project's skill or agent may run its hooks: its trust (a change to it asks again), or why not as a
 * sentence for the person, naming the command that trusts it. `declared` is the `hooks` value the session read at
 * its start, `file` the file that holds it: trust is checked against the files as they are now, so hooks read before
 * a change that put trusted content back (a branch switched while the session ran) must be the ones the file holds.
 */
export const frontMatterHooksTrusted = (input: {
  readonly kind: "skill" | "agent"
  readonly name: string
  readonly path: string
  readonly file: string
  readonly declared: unknown
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly trustProject: boolean
}): true | string => {
  const trust = makeTrust({ root: input.root, env: input.env, ...(input.trustProject ? { assume: ["plugin"] } : {}) })
  const state = Effect.runSync(
    trust.check(frontMatterHookSubject(input.kind, input.name, input.path)).pipe(
      Effect.map((c) => c.status),
      Effect.catch((e) => Effect.succeed(e.message)),
    ),
  )
  const own = `the project's ${input.kind} '${input.name}' (${input.path})`
  if (state === "trusted") {
    if (JSON.stringify(hooksNow(input.kind, input.file)) === JSON.stringify(input.declared)) return true
    return `${own} has hooks in its front matter other than those this session read at its start, so they were not run; review them, then start a new session`
  }
  const why = state === "changed" ? "changed since they were trusted" : state === "untrusted" ? "not trusted yet" : `not run: ${state}`
  return `${own} declares hooks in its front matter, ${why}, so they were not run; review them, then run 'anvil plugins trust ${input.kind}:${input.name}' (or pass --trust-plugins for one run)`
}

/** The `hooks` of `file`'s front matter as it reads now (undefined when it cannot be read). */
const hooksNow = (kind: "skill" | "agent", file: string): unknown => {
  try {
    const parsed = parseContinuedFrontMatter(readFileSync(file, "utf8"), kind === "skill" ? SKILL_FIELDS : AGENT_FIELDS)
    return parsed.ok ? parsed.fields.hooks : undefined
  } catch {
    return undefined
  }
}

/**
 * The front matter's values are all texts (front-matter.ts keeps YAML's scalars as written): a hook's `timeout`
 * and `once` are given their JSON types, as Claude Code's YAML reader gives them, so that `timeout: 30` is a number.
 */
const typedHooks = (value: unknown, key?: string): unknown => {
  if (Array.isArray(value)) return value.map((v) => typedHooks(v))
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typedHooks(v, k)]))
  if (typeof value !== "string") return value
  if (key === "timeout" && /^\d+(\.\d+)?$/.test(value.trim())) return Number(value)
  if (key === "once" && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === "true"
  return value
}

/** The hook entries; a wrong part of `hooks` is reported (with where it is) and costs only itself. */
export const frontMatterHookEntries = (input: FrontMatterHooksInput): ReadonlyArray<HookEntry> => {
  const owner = `${input.kind} '${input.name}'`
  const warnings: Array<string> = []
  const unsupported: Array<string> = []
  const at = (path: ReadonlyArray<string | number>) => `${input.file}: ${pathText(["hooks", ...path])}`
  const specs = readHookSpecs([{ file: input.file, events: typedHooks(input.hooks), at }], (command) => command, warnings, unsupported)
  // A session's start has passed when a skill is invoked or an agent runs: its SessionStart hooks have nothing to join.
  if (specs.SessionStart.length > 0) unsupported.push("SessionStart hooks")
  for (const w of warnings) input.onProblem(`${owner}: ${w}`)
  if (unsupported.length > 0) input.onProblem(`${owner}: anvil does not run its ${[...new Set(unsupported)].join(", ")} (front matter of ${input.file})`)
  const hooks = commandHooks({
    owner,
    root: input.root,
    env: input.env,
    hookEnv: { CLAUDE_PROJECT_DIR: input.root },
    specs: { ...specs, SessionStart: [] },
    session: input.session,
    honourOnce: true,
    onProblem: input.onProblem,
    ...(input.confine ? { confine: input.confine } : {}),
  })
  const plugin = `${input.kind}:${input.name}`
  const total = (list: ReadonlyArray<{ readonly timeoutMs: number }>) => list.reduce((sum, spec) => sum + spec.timeoutMs, 1000)
  return [
    ...(hooks["tool.before"] ? [{ plugin, owner, name: "tool.before" as const, fn: hooks["tool.before"], timeoutMs: total(specs.PreToolUse) }] : []),
    ...(hooks["tool.after"] ? [{ plugin, owner, name: "tool.after" as const, fn: hooks["tool.after"], timeoutMs: total(specs.PostToolUse) }] : []),
  ]
}
