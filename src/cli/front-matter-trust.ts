import { Effect, type Layer } from "effect"
import type { Path } from "effect/Path"
import { Config, type ConfigShape } from "../config/config.ts"
import { embeddedAssets } from "../embedded/assets.ts"
import { localAgents } from "../plugins/claude-agents.ts"
import { frontMatterHookSubject } from "../plugins/front-matter-hooks.ts"
import { pluginSkillFolders } from "../plugins/plugin-extras.ts"
import { PlatformLive } from "../runtime.ts"
import { loadSkillCatalog } from "../skills/skill-catalog.ts"
import type { FileSystem } from "../workspace/file-system.ts"

/**
 * The project's own skills and agents whose front matter declares hooks, as trust subjects named `skill:NAME` and
 * `agent:NAME` (front-matter-hooks.ts): what `anvil plugins trust skill:NAME` trusts. A project plugin's skills are
 * covered by the plugin's own trust and are not among them.
 */
export const frontMatterHookSubjects = async (root: string, env: Readonly<Record<string, string | undefined>>, config: ConfigShape) => {
  const platform = PlatformLive as Layer.Layer<FileSystem | Path>
  const catalog = await Effect.runPromise(
    loadSkillCatalog(root, embeddedAssets, pluginSkillFolders({ root, env, config })).pipe(Effect.provideService(Config, config), Effect.provide(platform)),
  )
  const skills = catalog.skills
    .filter((s) => s.source === "project" && s.plugin === undefined && s.dir !== undefined && s.fields.hooks !== undefined)
    .map((s) => ({ ...frontMatterHookSubject("skill", s.name, s.dir!), shown: s.dir! }))
  const agents = localAgents(root, env, true)
    .project.agents.filter((a) => a.hooks !== undefined)
    .map((a) => ({ ...frontMatterHookSubject("agent", a.name, a.hooks!.file), shown: a.hooks!.file }))
  return [...skills, ...agents]
}
