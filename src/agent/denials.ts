import type { ModelToolCall } from "../llm/model.ts"
import type { ToolOutcome } from "../tool-framework/runner.ts"
import { blockedBy, deniedBy, untrustedRule } from "./call-parsing.ts"
import type { PermissionDenial } from "./events.ts"

/**
 * The turn's permission denials: every call refused (the result's `permission_denials`), and the tools still refused
 * at the end — a later successful call of the tool clears it — whose work was therefore not done: the turn then ends
 * as permission_denied with a message saying who refused and what to do.
 */
export const makeDenials = () => {
  const denials: Array<PermissionDenial> = []
  // Tool name → the deny rule that refused it (rule and where it is set), else whether no one could be asked
  // (a scripted run's refusal) or a person (or the host) said no.
  const stillDenied = new Map<
    string,
    { readonly rule: { readonly rule: string; readonly where: string } | undefined; readonly unattended: boolean; readonly plugin?: string }
  >()
  // The project's rules that would have allowed a denied tool, had the user trusted them.
  const untrustedRules = new Map<string, { readonly rule: string; readonly next_step: string }>()
  return {
    list: (): Array<PermissionDenial> => [...denials],
    record: (call: ModelToolCall, params: unknown, outcome: ToolOutcome): void => {
      if (outcome.envelope.error?.code === "PERMISSION_DENIED") {
        denials.push({ tool_name: call.name, tool_use_id: call.id, tool_input: params })
        // A tool the profile withholds (Write in plan mode) is refused by design: the turn's answer is still the result.
        if (outcome.tool !== undefined) {
          const plugin = blockedBy(outcome.envelope.context.blocked_by)
          stillDenied.set(call.name, {
            rule: deniedBy(outcome.envelope.context.denied_by),
            unattended: outcome.envelope.context.unattended === true,
            ...(plugin !== undefined ? { plugin } : {}),
          })
        }
        const untrusted = untrustedRule(outcome.envelope.context.untrusted_rule)
        if (untrusted) untrustedRules.set(call.name, untrusted)
      } else if (outcome.envelope.status !== "error") stillDenied.delete(call.name)
    },
    /** Why the turn failed for want of permission, or undefined when every refused tool later ran. */
    summary: (): string | undefined => {
      if (stillDenied.size === 0) return undefined
      const byPerson = [...stillDenied].filter(([, d]) => d.rule === undefined && d.plugin === undefined)
      const asked = byPerson.filter(([, d]) => d.unattended).map(([name]) => name)
      const declined = byPerson.filter(([, d]) => !d.unattended).map(([name]) => name)
      const ruled = [...stillDenied].flatMap(([name, { rule }]) => (rule ? [`${name} (rule ${rule.rule} in ${rule.where})`] : []))
      const blocked = [...stillDenied].flatMap(([name, { plugin }]) => (plugin ? [`${name} (plugin '${plugin}')`] : []))
      const steps = [
        ...(asked.length > 0 ? [`Approve ${asked.join(", ")} calls with --allow or --yes.`] : []),
        // Refused when asked: the person knows; --yes would be advice against their own answer.
        ...(declined.length > 0 ? [`${declined.join(", ")} ${declined.length === 1 ? "was" : "were"} declined when asked.`] : []),
        ...asked.flatMap((name) => {
          const u = untrustedRules.get(name)
          return u ? [`The project's rule ${u.rule} would allow ${name} but is not trusted: run '${u.next_step}' to apply it.`] : []
        }),
        ...(ruled.length > 0
          ? [`Denied by deny rules, which --yes and --allow do not override: ${ruled.join("; ")}. To let such calls run, change or remove the rule in that file's "permission" section.`]
          : []),
        ...(blocked.length > 0
          ? [`Blocked by plugin hooks, which --yes and --allow do not override: ${blocked.join("; ")}. The reason is in the call's result; to let such calls run, change the plugin or list it in "plugins.disabled".`]
          : []),
      ]
      return `Permission was denied for ${[...stillDenied.keys()].join(", ")}; that part of the work was not done. ${steps.join(" ")}`
    },
  }
}
