import { Effect } from "effect"
import type { ConfigShape } from "../config/config.ts"
import { projectSandboxSection, resolveProjectSandbox, sandboxTrustSubject } from "../trust/project-sandbox.ts"
import { trustProjectSettings } from "../trust/project-settings.ts"
import { makeTrust } from "../trust/trust.ts"
import type { CliIO } from "./output.ts"

/** The trust kinds of project-file settings (trust/project-settings.ts) and of the project's sandbox settings. */
const SETTING_KINDS = ["provider", "permission", "lsp", "setting", "credentials", "sandbox"] as const

/** Whether a setting's key (as path parts) is one of the KEYs named (`lsp.python`, `providers`, `permission.bash`). */
const named = (keys: ReadonlyArray<string>) => (path: ReadonlyArray<string>) =>
  keys.some((k) => {
    const parts = k.split(".")
    return parts.every((p, i) => path[i] === p)
  })

/**
 * `anvil config trust [KEY ...]`: applies the project file's settings that are ignored until trusted (all of them,
 * or those under the KEYs named), the project's sandbox settings included; `anvil config untrust` takes every
 * such decision of this project back.
 */
export const configTrustCommand = async (
  verb: "trust" | "untrust",
  keys: ReadonlyArray<string>,
  io: CliIO,
  config: ConfigShape,
  dir: string,
): Promise<number> => {
  const trust = makeTrust({ root: dir, env: config.env })
  if (verb === "untrust") {
    if (keys.length > 0) io.err(`anvil config untrust: takes no keys; it forgets every trusted project setting of this project\n`)
    if (keys.length > 0) return 2
    const entries = await Effect.runPromise(trust.entries())
    const ours = entries.filter((e) => (SETTING_KINDS as ReadonlyArray<string>).includes(e.kind))
    for (const e of ours) await Effect.runPromise(trust.untrust(e.kind, e.name))
    io.out(
      ours.length === 0
        ? "No settings of this project's anvil.json were trusted.\n"
        : `No longer trusted: ${ours.map((e) => `${e.kind} ${e.name}`).join(", ")}. The project's anvil.json settings that need trust are ignored again.\n`,
    )
    return 0
  }
  const only = keys.length > 0 ? named(keys) : undefined
  const trusted = [...(await Effect.runPromise(trustProjectSettings(config, dir, only)))]
  if (only === undefined || only(["sandbox"])) {
    const sandbox = await Effect.runPromise(resolveProjectSandbox(config, dir))
    if (sandbox.ignored.length > 0) {
      await Effect.runPromise(trust.trust(sandboxTrustSubject(projectSandboxSection(config))))
      trusted.push(...Object.keys(sandbox.ignoredValues ?? {}).map((k) => `sandbox.${k}`))
    }
  }
  const file = config.layers.find((l) => l.source === "project file")?.file ?? "anvil.json"
  io.out(
    trusted.length === 0
      ? `Nothing to trust: ${file} has no ${keys.length > 0 ? `settings under ${keys.join(", ")} ` : "settings "}that are ignored for want of trust.\n`
      : `Trusted for this project: ${trusted.join(", ")} (from ${file}). They apply from now on; a change to them asks again ('anvil config untrust' takes this back).\n`,
  )
  return 0
}
