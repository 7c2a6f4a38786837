import type { AgentSessionShape } from "../agent/agent-session.ts"
import { sandboxSummary } from "../sandbox/summary.ts"
import { VERSION } from "../version.ts"
import type { ClaudeStream } from "./claude-stream.ts"

/** What the session warns about as it starts (a setting that cannot take effect), each with where it comes from. */
export const sessionWarnings = (session: AgentSessionShape): ReadonlyArray<{ readonly source: "sandbox" | "config"; readonly message: string }> =>
  [
    { source: "sandbox" as const, message: session.sandbox.warning },
    { source: "sandbox" as const, message: session.sandbox.settings.projectIgnored },
    { source: "config" as const, message: session.settingsIgnored },
    { source: "config" as const, message: session.verifySkipped },
  ].flatMap((w) => (w.message ? [{ source: w.source, message: w.message }] : []))

/**
 * The start of a stream-json run, as Claude Code's: the `init` message (tools, MCP servers, plugins, the sandbox),
 * then the plugins' notices and the session's warnings as system messages.
 */
export const announceStart = (claude: ClaudeStream, session: AgentSessionShape, cwd: string, yes: boolean, notices: ReadonlyArray<string>): void => {
  claude.init({
    cwd,
    model: session.model.id,
    tools: session.tools.map((t) => t.name),
    permissionMode: yes ? "bypassPermissions" : "default",
    version: VERSION,
    profile: session.profile.name,
    engine: session.engine,
    resumed: session.resumed,
    skills: session.skills,
    slash_commands: session.commands.map((c) => c.name),
    ...(session.agents.length > 0 ? { agents: [...new Set(["explore", ...session.agents.map((a) => a.name)])] } : {}),
    plugins: session.plugins.reports.map((r) => ({ name: r.name, source: r.source, status: r.status })),
    mcp_servers: session.mcp.views().map((v) => ({ name: v.name, status: v.status === "starting" ? "pending" : v.status })),
    sandbox: sandboxSummary(session.sandbox),
  })
  for (const notice of notices) claude.system("plugins", { message: notice })
  for (const w of sessionWarnings(session)) claude.system("warning", { source: w.source, message: w.message })
}
