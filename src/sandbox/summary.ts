import type { SandboxStatus } from "./sandbox-contract.ts"

/** The sandbox in force, as machine-readable output shows it (stream-json init, `anvil sandbox --json`). */
export const sandboxSummary = (status: SandboxStatus) => ({
  mode: status.confining ? status.settings.mode : "off",
  configured_mode: status.settings.mode,
  enforced: status.confining,
  backend: status.support.available ? `bubblewrap ${status.support.version}` : null,
  network: status.settings.network.kind === "hosts" ? status.settings.network.hosts : status.settings.network.kind,
  auto_allow: status.settings.autoAllow,
  require: status.settings.require,
  ...(status.warning ? { warning: status.warning } : {}),
  ...(status.settings.projectIgnored ? { project_ignored: status.settings.projectIgnored } : {}),
})

/** One line for the chat banner and `anvil config`: "workspace-write (bubblewrap), network off". */
export const sandboxLine = (status: SandboxStatus): string => {
  if (status.settings.mode === "off") return "off (sandbox.mode)"
  if (!status.confining) return `not available — commands run unconfined (${status.support.available ? "" : status.support.reason})`
  const n = status.settings.network
  const net = n.kind === "hosts" ? `network: ${n.hosts.join(", ")}` : `network ${n.kind}`
  return `${status.settings.mode} (bubblewrap), ${net}`
}
