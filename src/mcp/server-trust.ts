import { Effect } from "effect"
import { makeTrust, type TrustSubject } from "../trust/trust.ts"
import type { ServerSpec } from "./server-config.ts"

/** Whether a server may start: user servers always; project servers once the user trusted this exact definition. */
export type TrustState = "trusted" | "untrusted" | "changed"

/** What MCP needs of the trust store (src/trust), so the hub stays free of its storage. */
export interface ServerTrust {
  readonly state: (spec: ServerSpec) => TrustState
  readonly trust: (spec: ServerSpec) => void
  readonly untrust: (spec: ServerSpec) => void
}

/** Trust is given to the definition as written (command, args, env, url, headers), not to the name. */
const subjectOf = (spec: ServerSpec): TrustSubject => ({ kind: "mcp", name: spec.name, content: { text: JSON.stringify(spec.raw) } })

/** The user's trust decisions for the project at `root` (the store plugins and hooks use too). */
export const serverTrust = (root: string, env: Readonly<Record<string, string | undefined>>): ServerTrust => {
  const store = makeTrust({ root, env })
  return {
    // A store that cannot be read trusts nothing.
    state: (spec) => Effect.runSync(store.check(subjectOf(spec)).pipe(Effect.map((c) => c.status), Effect.orElseSucceed(() => "untrusted" as const))),
    trust: (spec) => void Effect.runSync(store.trust(subjectOf(spec)).pipe(Effect.orDie)),
    untrust: (spec) => void Effect.runSync(store.untrust("mcp", spec.name).pipe(Effect.orDie)),
  }
}
