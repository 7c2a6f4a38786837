import { Predicate } from "effect"
import type { CommandConfinement } from "../sandbox/sandbox-contract.ts"
import type { Skill } from "../skills/skill-catalog.ts"
import type { ToolResultEvent } from "./api.ts"
import { frontMatterHookEntries, frontMatterHooksTrusted } from "./front-matter-hooks.ts"
import type { HookEntry } from "./hook-runner.ts"

/**
 * A skill's front-matter hooks, in force as Claude Code puts them: for the rest of the session once the skill is
 * invoked — by a person's `/name` (the session calls `invoked`) or by the model's load of it with the skill tool (seen
 * by `observer`, a `tool.after` entry). Each skill's hooks are added once. A project's own skill (not a trusted
 * plugin's) runs them only once trusted, in the command sandbox, as the project's other hooks; otherwise the person is
 * told why they did not run, once.
 */
export interface SkillHooks {
  /** Puts the skill's hooks in force (nothing when it has none or they are in force already). */
  readonly invoked: (skill: Skill) => void
  /** Watches the skill tool's loads. */
  readonly observer: HookEntry<"tool.after">
  /** The hooks in force now. */
  readonly scoped: () => ReadonlyArray<HookEntry>
}

export interface SkillHooksInput {
  readonly skills: ReadonlyArray<Skill>
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly session: { readonly id: string; readonly transcript?: string }
  readonly onProblem: (message: string) => void
  /** The command sandbox, for a project skill's commands. */
  readonly confine: CommandConfinement
  /** `--trust-plugins`: the project's skills' hooks run for this run without their trust. */
  readonly trustProject: boolean
}

/** Whether any skill declares hooks (without one, the session wraps no tool for them). */
export const skillsWithHooks = (skills: ReadonlyArray<Skill>): boolean => skills.some((s) => s.fields.hooks !== undefined)

export const skillHooks = (input: SkillHooksInput): SkillHooks => {
  const inForce = new Map<string, ReadonlyArray<HookEntry>>()
  const invoked = (skill: Skill) => {
    if (skill.fields.hooks === undefined || inForce.has(skill.path)) return
    inForce.set(skill.path, [])
    // A project plugin's skill is covered by that plugin's trust (its skills load only once it is trusted).
    const own = skill.source === "project" && skill.plugin === undefined
    if (own && skill.dir !== undefined) {
      const trusted = frontMatterHooksTrusted({ kind: "skill", name: skill.name, path: skill.dir, file: skill.path, declared: skill.fields.hooks, root: input.root, env: input.env, trustProject: input.trustProject })
      if (trusted !== true) return input.onProblem(trusted)
    }
    inForce.set(
      skill.path,
      frontMatterHookEntries({
        kind: "skill",
        name: skill.name,
        file: skill.path,
        hooks: skill.fields.hooks,
        root: input.root,
        env: input.env,
        session: input.session,
        onProblem: input.onProblem,
        ...(skill.source === "project" ? { confine: input.confine } : {}),
      }),
    )
  }
  const observer: HookEntry<"tool.after"> = {
    plugin: "skill-hooks",
    owner: "the skills' hooks",
    name: "tool.after",
    fn: (event: ToolResultEvent) => {
      const data = event.result.data
      // A load of the skill itself (its instructions), not of one of its other files.
      if (event.tool !== "skill" || !Predicate.isObject(data) || data.file !== undefined || !("files" in data)) return undefined
      const skill = input.skills.find((s) => s.name === data.name && s.source === data.source)
      if (skill) invoked(skill)
      return undefined
    },
  }
  return { invoked, observer, scoped: () => [...inForce.values()].flat() }
}
