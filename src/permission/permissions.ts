import { Context, Effect, Layer, Option } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import { Path } from "effect/Path"
import { Config } from "../config/config.ts"
import { readSettingsFile } from "../config/settings-file.ts"
import type { HookPermission, PermissionLevel, Tool } from "../tool-framework/definition.ts"
import { Workspace } from "../workspace/workspace.ts"
import { realLocation } from "../workspace/real-location.ts"
import { parseShownPath, resolveKeeping } from "../workspace/path-bytes.ts"
import { fromHome } from "../workspace/home-path.ts"
import { ruleValues, rulesCover, showAllowRule, type AllowRule } from "./allow-rule.ts"
import { describeSubjects, pathSubjects, subjectsOf, type Subjects } from "./subjects.ts"
import { levelFor, toolRules } from "./rules.ts"
import { sameToolKey } from "./tool-keys.ts"
import { withRootTwins } from "./root-twins.ts"
import { isRecord } from "../protocol/is-record.ts"
import { untrustedAllow, type UntrustedAllow } from "./untrusted-allow.ts"
import { deniesEveryCall, denyingRule, denyReason, type DenyingRule } from "./deny-source.ts"
import { readAsksEverything } from "./read-asks.ts"

/** One call awaiting a decision. */
export interface PermissionRequest {
  readonly tool: Tool
  readonly params: unknown
  /** What the rules matched on (command, paths, host), when the call has one. */
  readonly subjects?: Subjects | undefined
  /**
   * Set when the call asks to run a command outside the command sandbox: only
   * a person (or an --allow rule naming the command) may approve it; --yes and
   * configured allow rules do not, and "always" answers count once.
   */
  readonly unconfined?: boolean
  /** The call's id, when it comes from the pipeline (a host asked about it refers to it). */
  readonly callId?: string | undefined
  /** A `tool.before` hook's word on this call (see {@link HookPermission}); shown with the question it raises. */
  readonly hook?: HookPermission | undefined
  /**
   * Set for a confined command while `read` asks about every file (the rule, as written and where): the sandbox
   * cannot hide them all, so the command is asked about (sandbox.auto_allow does not spare it) and, approved, may read them.
   */
  readonly readAsked?: string | undefined
}

export type PermissionDecision =
  | {
      readonly allowed: true
      readonly params?: unknown
      /**
       * Set when someone was asked: the world may have changed while they decided (a protected file created, a
       * link swapped), so what a tool's precheck found before is found again.
       */
      readonly asked?: true
    }
  | {
      readonly allowed: false
      readonly reason: string
      /** Set when a configured deny rule refused the call: which rule, and where it is set. */
      readonly rule?: DenyingRule
      /** Set when the project's own rule would have allowed the call had the user trusted it. */
      readonly untrusted?: UntrustedAllow
      /** Set when no one could be asked: the refusal is the scripted run's, not a person's answer. */
      readonly unattended?: true
    }

/**
 * The answer to an "ask": run it once, approve such calls for the rest of the
 * session, approve them for good (saved to the project's anvil.json), or
 * refuse (optionally saying why, for the model). `true`/`false` are "once"/"deny".
 */
/** `unattended`: no one was there to ask (a scripted run's refusal), so approving with --yes or --allow is the way on. */
export type AskAnswer = "once" | "session" | "always" | "deny" | { readonly deny: string; readonly unattended?: true } | { readonly params: unknown }

/** Decides whether a call may run: rules first, then the front end's answer for "ask". */
export interface PermissionsShape {
  readonly check: (request: PermissionRequest) => Effect.Effect<PermissionDecision>
  /** The level the rules give a call (before any session approval or question). */
  readonly levelOf: (tool: Tool, params: unknown) => PermissionLevel
  /** Approves calls matching `rule` for the rest of the session (never overrides a deny). */
  readonly allow: (rule: AllowRule) => Effect.Effect<void>
  /**
   * Why every call of this tool is refused (its configured level is deny and no pattern lets any call
   * through), or undefined when some call may run: such a tool is neither offered to the model nor loadable.
   */
  readonly deniedOutright: (tool: Tool) => string | undefined
  /**
   * The decision for a call a tool makes on its own behalf (fetch following a redirect to another host), asking
   * no one: allowed by the rules, a session approval or a command line that approves what it names; refused by a
   * deny rule; else "ask" (the tool stops and leaves the call to the model, which is asked about as any call is).
   */
  readonly judge: (tool: Tool, params: unknown) => PermissionDecision | "ask"
}

/** The level configured for a tool in anvil.json `permission` as a whole ({"bash": "ask"}), else the tool's default. */
export const configuredLevel = (config: Config["Service"], tool: Tool): PermissionLevel => {
  const rules = toolRules(config.get("permission", {} as Record<string, unknown>), tool.name)
  return rules?.level ?? tool.permission ?? "allow"
}

export interface PermissionsOptions {
  /** Approvals given up front (`--allow`). */
  readonly allow?: ReadonlyArray<AllowRule>
  /**
   * The command sandbox: whether it confines commands, and whether confined calls are approved without asking
   * (`sandbox.auto_allow`). `confining` may be a getter that probes the machine, so it is read last.
   */
  readonly sandbox?: { readonly confining: boolean; readonly autoAllow: boolean }
  /** Told about allow rules an "always" answer saved to the project's anvil.json (they are then trusted as the user's own). */
  readonly afterSave?: (rules: ReadonlyArray<AllowRule>) => Effect.Effect<void>
  /** `onAsk` answers at once, asking nobody (the call's own command line approves it): decisions are not marked `asked`. */
  readonly answersAtOnce?: boolean
}

/** Whether --allow rules that name commands explicitly (a pattern other than a bare `*`) cover this call. */
const namesCommand = (rules: ReadonlyArray<AllowRule>, toolName: string, subjects: Subjects | undefined): boolean =>
  rulesCover(
    rules.filter((rule) => rule.pattern !== undefined && rule.pattern.replace(/\*/g, "").trim() !== ""),
    toolName,
    subjects,
  )

/**
 * The rules an "always"/"session" answer adds (and a refusal suggests): one per value as rules judge it (a
 * compound command: one per simple command, which is what a rule is matched against), or the whole tool when the
 * call has none.
 */
export const rulesForAnswer = (tool: Tool, subjects: Subjects | undefined): ReadonlyArray<AllowRule> => {
  const values = subjects ? [...new Set(ruleValues(subjects))] : []
  return values.length > 0 ? values.map((pattern) => ({ tool: tool.name, pattern })) : [{ tool: tool.name }]
}


/**
 * Adds allow rules to `<root>/anvil.json` (`permission.<tool>`), keeping the
 * rest of the file's settings. A whole-tool rule sets the tool's level; a
 * pattern joins the tool's pattern object (an existing level moves to "*").
 * Comments in the file are not preserved.
 */
export const saveAllowRules = (root: string, rules: ReadonlyArray<AllowRule>) =>
  Effect.gen(function* () {
    const path = yield* Path
    const file = path.join(root, "anvil.json")
    const read = readSettingsFile(file)
    // Something there that cannot be read is left alone: writing over it would lose the user's settings.
    if (read.kind === "unreadable") return yield* Effect.fail(new Error(`${file} was not changed: ${read.reason}.`))
    const text = read.kind === "text" ? read.text : "{}"
    const { parseJsonc } = yield* Effect.promise(() => import("../config/jsonc.ts"))
    const parsed = yield* Effect.try({ try: () => parseJsonc(text), catch: (e) => new Error(`${file}: ${(e as Error).message}`) })
    const data: Record<string, unknown> = isRecord(parsed) ? { ...parsed } : {}
    const permission: Record<string, unknown> = isRecord(data.permission) ? { ...data.permission } : {}
    for (const rule of rules) {
      // Into the entry already written for the tool (`"Bash"` for bash): a second key for it would hide that one's rules.
      const key = sameToolKey(permission, rule.tool) ?? rule.tool
      const entry = permission[key]
      if (rule.pattern === undefined) {
        permission[key] = isRecord(entry) ? { ...entry, "*": "allow" } : "allow"
      } else {
        const object: Record<string, unknown> = isRecord(entry) ? { ...entry } : typeof entry === "string" ? { "*": entry } : {}
        object[rule.pattern] = "allow"
        permission[key] = object
      }
    }
    data.permission = permission
    // Loaded here: a call that saves no rule never evaluates the atomic write (and its journal naming).
    const { atomicWrite } = yield* Effect.promise(() => import("../workspace/atomic-write.ts"))
    yield* atomicWrite(file, new TextEncoder().encode(`${JSON.stringify(data, null, 2)}\n`))
    return file
  })

export class Permissions extends Context.Service<Permissions, PermissionsShape>()("anvil/Permissions") {
  /**
   * Config rules (see rules.ts), with `onAsk` answering the calls whose level
   * is "ask" — a TTY prompt, `--yes`, or the direct `anvil tool` command, where
   * the user's own invocation is the approval. Approvals for the session
   * (`--allow`, "always for this session") are consulted before asking; a deny
   * rule is never overridden.
   */
  static make = (onAsk: (request: PermissionRequest) => Effect.Effect<boolean | AskAnswer>, options: PermissionsOptions = {}) =>
    Effect.gen(function* () {
      const config = yield* Config
      const workspace = Option.getOrUndefined(yield* Effect.serviceOption(Workspace))
      const fs = Option.getOrUndefined(yield* Effect.serviceOption(FileSystem))
      const pathService = Option.getOrUndefined(yield* Effect.serviceOption(Path))
      const approved: Array<AllowRule> = [...(options.allow ?? [])]
      // A name given back quoted as anvil shows it ("secret.txt", "caf\351.txt") names the same file the tools
      // open (the workspace reads it so), so rules judge the name it stands for, never the quoted text.
      // `~/x` is the home folder's, as the workspace resolves it (never `<cwd>/~/x`): the rules judge the file the tool opens.
      const absolute = (from: string, given: string): string => {
        const named = parseShownPath(given)
        const homed = named === "~" || named.startsWith("~/") ? fromHome(named, workspace?.protection.home) : undefined
        return homed ?? resolveKeeping(from, named, pathService!.resolve)
      }
      const normalize = (p: string): string => {
        if (!workspace || !pathService) return parseShownPath(p).replace(/^\.\//, "")
        return workspace.display(absolute(workspace.cwd, p))
      }
      // A path is judged as named and as where its links lead inside the project: a rule about secret.txt also
      // holds for alias.txt -> secret.txt.
      const leadsTo = (shown: string): string | undefined => {
        if (!workspace || !pathService) return undefined
        // `shown` is root-relative as results name it (`~/x` there is the project's folder named `~`), never the home folder.
        const real = realLocation(resolveKeeping(workspace.root, parseShownPath(shown), pathService.resolve))
        return workspace.contains(real) ? workspace.display(real) : undefined
      }
      const permission = () => withRootTwins(config.get("permission", {} as Record<string, unknown>), workspace?.root, config.env.HOME)
      const subjectsFor = (tool: Tool, params: unknown): Subjects | undefined => {
        if (!tool.permissionSubjects) return subjectsOf(params, normalize, leadsTo)
        const own = tool.permissionSubjects(params)
        // A tool's own paths are named as a call names them: made root-relative and followed like the generic ones.
        return own?.kind === "path" ? pathSubjects(own.values, normalize, leadsTo) : own
      }
      const sandbox = options.sandbox
      const asked = options.answersAtOnce ? {} : { asked: true as const }
      // A confined command could read any file, which the sandbox cannot hide all of: `read` asking about each is the rule.
      const readAsked = (tool: Tool, params: unknown): string | undefined =>
        tool.sandboxedCall?.(params) === true && sandbox?.confining ? readAsksEverything(config, workspace?.root) : undefined
      /**
       * The tool's own default level; a confined call of an asking tool is allowed with sandbox.auto_allow, unless
       * `read` asks about every file (the sandbox keeps that only by asking about the command).
       */
      const defaultLevel = (tool: Tool, params: unknown): PermissionLevel =>
        tool.permission === "ask" && sandbox?.autoAllow && tool.sandboxedCall?.(params) === true && sandbox.confining && readAsked(tool, params) === undefined
          ? "allow"
          : (tool.permission ?? "allow")
      const levelOf = (tool: Tool, params: unknown) => levelFor(toolRules(permission(), tool.name), defaultLevel(tool, params), subjectsFor(tool, params))

      const denied = (tool: Tool, rules: ReturnType<typeof toolRules>, subjects: Subjects | undefined): PermissionDecision => {
        const rule = rules ? denyingRule(config, tool.name, rules, subjects) : undefined
        const what = describeSubjects(subjects)
        return rule
          ? { allowed: false, reason: denyReason(tool.name, what, rule), rule }
          : { allowed: false, reason: `The '${tool.name}' call${what} is denied by the permission settings.` }
      }
      const judge = (tool: Tool, params: unknown): PermissionDecision | "ask" => {
        const subjects = subjectsFor(tool, params)
        const rules = toolRules(permission(), tool.name)
        const level = levelFor(rules, defaultLevel(tool, params), subjects)
        if (level === "deny") return denied(tool, rules, subjects)
        return level === "allow" || options.answersAtOnce || rulesCover(approved, tool.name, subjects) ? { allowed: true } : "ask"
      }

      const check = (request: PermissionRequest): Effect.Effect<PermissionDecision> =>
        Effect.gen(function* () {
          const subjects = request.subjects ?? subjectsFor(request.tool, request.params)
          const rules = toolRules(permission(), request.tool.name)
          const level = levelFor(rules, defaultLevel(request.tool, request.params), subjects)
          const what = describeSubjects(subjects)
          if (level === "deny") return denied(request.tool, rules, subjects)
          if (request.tool.sandboxedCall?.(request.params) === false && sandbox?.confining) {
            // Leaving the sandbox: a person decides, whatever the rules say.
            if (namesCommand(options.allow ?? [], request.tool.name, subjects)) return { allowed: true } as const
            const answer = yield* onAsk({ ...request, subjects, unconfined: true })
            if (answer === true || answer === "once" || answer === "session" || answer === "always") return { allowed: true, ...asked } as const
            if (typeof answer === "object" && "params" in answer) return { allowed: true, params: answer.params, ...asked } as const
            if (typeof answer === "object") return { allowed: false, reason: answer.deny, ...(answer.unattended ? { unattended: true } : {}) } as const
            return { allowed: false, reason: `The user did not approve running this command outside the sandbox${what}.` } as const
          }
          const hook = request.hook?.decision
          // A hook's "ask" puts the question whatever allowed the call; its "allow" spares only the tool's own
          // question: an ask rule someone configured is still asked (the rules judged with an allowing default).
          if (hook !== "ask") {
            if (level === "allow") return { allowed: true } as const
            if (rulesCover(approved, request.tool.name, subjects)) return { allowed: true } as const
            if (hook === "allow" && levelFor(toolRules(permission(), request.tool.name), "allow", subjects) === "allow") return { allowed: true } as const
          }
          const readRule = readAsked(request.tool, request.params)
          const answer = yield* onAsk({ ...request, subjects, ...(readRule !== undefined ? { readAsked: readRule } : {}) })
          if (answer === true || answer === "once") return { allowed: true, ...asked } as const
          if (answer === "session" || answer === "always") {
            const rules = rulesForAnswer(request.tool, subjects)
            approved.push(...rules)
            if (answer === "always" && workspace && fs && pathService) {
              yield* saveAllowRules(workspace.root, rules).pipe(
                Effect.provideService(FileSystem, fs),
                Effect.provideService(Path, pathService),
                Effect.andThen(options.afterSave ? options.afterSave(rules) : Effect.void),
                Effect.catch((e) => Effect.logWarning(`Could not save the permission rule (${rules.map(showAllowRule).join(", ")}): ${String(e)}`)),
              )
            }
            return { allowed: true, ...asked } as const
          }
          if (typeof answer === "object" && "params" in answer) return { allowed: true, params: answer.params, ...asked } as const
          const reason = typeof answer === "object" ? answer.deny : `The user did not approve this '${request.tool.name}' call${what}.`
          const unattended = typeof answer === "object" && "unattended" in answer && answer.unattended ? ({ unattended: true } as const) : {}
          // The project's own rule would have allowed it, had the user trusted it: the refusal says so and how.
          const untrusted = untrustedAllow(config, request.tool.name, defaultLevel(request.tool, request.params), subjects)
          return untrusted ? ({ allowed: false, reason: `${reason} ${untrusted.note}`, untrusted, ...unattended } as const) : ({ allowed: false, reason, ...unattended } as const)
        })
      const deniedOutright = (tool: Tool): string | undefined => {
        const rules = toolRules(permission(), tool.name)
        if (!rules || !deniesEveryCall(rules, tool.permission ?? "allow")) return undefined
        const rule = denyingRule(config, tool.name, rules, undefined)
        return rule ? denyReason(tool.name, "", rule) : undefined
      }
      return Permissions.of({ check, levelOf, allow: (rule) => Effect.sync(() => void approved.push(rule)), deniedOutright, judge })
    })

  /** {@link Permissions.make} as a layer. */
  static layer = (onAsk: (request: PermissionRequest) => Effect.Effect<boolean | AskAnswer>, options: PermissionsOptions = {}) =>
    Layer.effect(Permissions, Permissions.make(onAsk, options))

  /** Everything the rules allow or ask runs: for direct invocations and tests. */
  static allowAsked = Permissions.layer(() => Effect.succeed(true))
}
