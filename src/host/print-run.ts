import type { CliIO } from "../cli/output.ts"
import type { ModelHttpShape } from "../llm/http.ts"
import type { Tool } from "../tool-framework/definition.ts"
import { hostModel } from "./host-messages.ts"
import { mcpConfigSources } from "./mcp-config-flag.ts"
import { denyRules, EDIT_TOOLS } from "./permission-bridge.ts"
import { projectSettings, type PrintFlags } from "./print-flags.ts"
import { sdkAgents } from "./sdk-agents.ts"
import { EXIT } from "../cli/exit-codes.ts"
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
export const printRun = async (flags: PrintFlags, io: CliIO, root: string | undefined, tools: ReadonlyArray<Tool>, http?: ModelHttpShape): Promise<number> => {
  // Structured output and partial messages are the host protocol's (its control channel, its stream): one prompt has neither.
  const needsStreamInput = [...(flags.jsonSchema !== undefined ? ["--json-schema"] : []), ...(flags.includePartialMessages ? ["--include-partial-messages"] : [])]
  if (needsStreamInput.length > 0) {
    io.err(`${needsStreamInput.map((f) => `anvil: ${f} needs --input-format stream-json and --output-format stream-json (as the Agent SDK starts anvil)\n`).join("")}Run 'anvil --help' for usage.\n`)
    return EXIT.usage
  }
  if (flags.ignored.length > 0) io.err(`anvil: accepted but not acted on: ${flags.ignored.join(", ")}\n`)
  const onProblem = (message: string) => io.err(`anvil: ${message}\n`)
  const { runCommand } = await import("../cli/run-command.ts")
  // What `anvil run` has no flag for goes in directly: a dropped --disallowedTools would run what the caller forbade.
  const mcpSources = mcpConfigSources(flags.mcpConfigs, io.cwd, onProblem)
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
    ...(flags.strictMcpConfig ? { mcpStrict: true } : {}),
    session: {
      ...sessionLimits(flags, io.cwd, onProblem),
      ...(flags.persistSession ? {} : { persist: false }),
      // Claude Code reads CLAUDE.md with the project's settings; the program's subagents; thinking; a fork of the resumed session.
      claudeInstructions: projectSettings(flags),
      ...(flags.agents.length > 0 ? { customAgents: sdkAgents(flags.agents, onProblem) } : {}),
      ...(flags.thinking ? { thinking: flags.thinking } : {}),
      ...(flags.forkSession ? { fork: true } : {}),
      ...(http ? { http } : {}),
    },
  })
}
