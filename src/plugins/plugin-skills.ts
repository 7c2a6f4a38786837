import { existsSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import type { ConfigShape } from "../config/config.ts"
import { makeTrust } from "../trust/trust.ts"
import { discoverPlugins } from "./discovery.ts"
import { pluginSettings } from "./plugin-host.ts"

/**
 * The `skills/` folders of the Claude Code plugin folders that would load:
 * not disabled, and trusted when they came with the project. Found without
 * running anything, so the skill catalogue can include them cheaply.
 */
export const pluginSkillFolders = (input: {
  readonly root: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly config: ConfigShape
}): ReadonlyArray<{ readonly dir: string; readonly source: "project" | "user" }> => {
  const settings = pluginSettings(input.config)
  const found = discoverPlugins({ root: input.root, env: input.env, paths: settings.paths })
  const claude = found.plugins.filter(
    (p) => p.kind === "claude" && !p.problem && !settings.disabled.includes(p.name) && existsSync(join(p.path, "skills")),
  )
  if (claude.length === 0) return []
  const trust = makeTrust({ root: input.root, env: input.env })
  return claude
    .filter(
      (p) =>
        p.source === "user" ||
        Effect.runSync(
          trust.check({ kind: "plugin", name: p.name, content: { path: p.path } }).pipe(
            Effect.map((c) => c.status === "trusted"),
            Effect.orElseSucceed(() => false),
          ),
        ),
    )
    .map((p) => ({ dir: join(p.path, "skills"), source: p.source }))
}
