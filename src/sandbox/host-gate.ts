import { hostAllowed, type SandboxSettings } from "./settings.ts"

/**
 * Whether the sandbox's network proxy lets a command reach `host`: one in sandbox.network, one approved earlier in
 * the session, or one the person approves now (`askHost`, chat: "always" also saves it). One question per host at a
 * time, however many connections wait for it. Refused hosts are kept in order (`refused`), for each command's
 * answer to name those refused while it ran.
 */
export const hostGate = (
  settings: SandboxSettings,
  askHost?: (host: string) => Promise<"once" | "always" | "deny">,
  saveHost?: (host: string) => Promise<void>,
) => {
  const approvedHosts: Array<string> = []
  const refused: Array<string> = []
  const asking = new Map<string, Promise<boolean>>()
  const gate = async (host: string): Promise<boolean> => {
    const hosts = settings.network.kind === "hosts" ? settings.network.hosts : []
    if (hostAllowed(hosts, host) || hostAllowed(approvedHosts, host)) return true
    if (askHost) {
      let pending = asking.get(host)
      if (!pending) {
        pending = askHost(host).then(async (answer) => {
          if (answer === "deny") return false
          approvedHosts.push(host)
          if (answer === "always") await saveHost?.(host).catch(() => undefined)
          return true
        })
        asking.set(host, pending)
        void pending.finally(() => asking.delete(host))
      }
      if (await pending) return true
    }
    refused.push(host)
    return false
  }
  return { gate, refused: refused as ReadonlyArray<string> }
}
