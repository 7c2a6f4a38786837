import type { CliIO } from "../cli/output.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { hostModel } from "./host-messages.ts"
import { mcpConfigSources } from "./mcp-config-flag.ts"
import { denyRules, EDIT_TOOLS } from "./permission-bridge.ts"
import type { PrintFlags } from "./print-flags.ts"
import { sessionLimits } from "./limit-flags.ts"

/**
 * Claude Code's print mode without stream-json input (`anvil -p "…"`, a script written for `claude -p`): one
 * prompt, run as `anvil run` runs it, with the flags translated to its options.
 */

/** `anvil run`'s arguments for the flags it has one for. */
const printArgs = (flags: PrintFlags): Array<string> => {
  const model = hostModel(flags.model)
  return [
    ...(flags.prompt !== "" ? [flags.prompt] : []),
    "--format",
    flags.outputFormat,
    ...(model ? ["--model", model] : []),
    ...(flags.maxTurns ? ["--max-steps", String(flags.maxTurns)] : []),
    ...(flags.permissionMode === "bypassPermissions" ? ["--yes"] : []),
    ...(flags.permissionMode === "acceptEdits" ? [...EDIT_TOOLS].flatMap((t) => ["--allow", t]) : []),
    ...(flags.permissionMode === "plan" ? ["--profile", "plan"] : flags.resume || flags.continueLast ? ["--profile", "code"] : []),
    ...flags.allowed.flatMap((r) => ["--allow", r.pattern === undefined ? r.tool : `${r.tool}:${r.pattern}`]),
    ...(flags.resume ? ["--session", flags.resume] : flags.continueLast ? ["--continue"] : []),
  ]
}

/** Runs the one prompt; the exit code is `anvil run`'s. */
export const printRun = async (flags: PrintFlags, io: CliIO, root: string | undefined, tools: ReadonlyArray<Tool>): Promise<number> => {
  const needsStreamInput = [...(flags.jsonSchema !== undefined ? ["--json-schema"] : []), ...(flags.settingSources !== undefined ? ["--setting-sources"] : []), ...(flags.agents.length > 0 ? ["--agents"] : [])]
  const ignored = [...flags.ignored, ...needsStreamInput.map((f) => `${f} (honoured with --input-format stream-json)`)]
  if (ignored.length > 0) io.err(`anvil: accepted but not acted on: ${ignored.join(", ")}\n`)
  const { runCommand } = await import("../cli/run-command.ts")
  // What `anvil run` has no flag for goes in directly: a dropped --disallowedTools would run what the caller forbade.
  const mcpSources = mcpConfigSources(flags.mcpConfigs, io.cwd, (message) => io.err(`anvil: ${message}\n`))
  return runCommand(printArgs(flags), io, root, flags.tools ? tools.filter((t) => flags.tools!.includes(t.name)) : tools, false, {
    configOverrides: {
      ...(flags.disallowed.length > 0 ? { permission: denyRules(flags.disallowed) } : {}),
      // Sandboxed commands are asked about unless --settings says sandbox.autoAllowBashIfSandboxed (Claude Code's rule).
      ...(flags.autoAllowSandboxed ? {} : { sandbox: { auto_allow: false } }),
    },
    ...(flags.systemPrompt !== undefined || flags.appendSystemPrompt !== undefined
      ? { systemPrompt: { ...(flags.systemPrompt !== undefined ? { replace: flags.systemPrompt } : {}), ...(flags.appendSystemPrompt !== undefined ? { append: flags.appendSystemPrompt } : {}) } }
      : {}),
    ...(mcpSources.length > 0 ? { mcpSources } : {}),
    session: sessionLimits(flags, io.cwd, (message) => io.err(`anvil: ${message}\n`)),
  })
}
