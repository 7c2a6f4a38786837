import { isRecord } from "../protocol/is-record.ts"

/**
 * A setting of the project's own anvil.json left out of the configuration in
 * force because the user has not trusted it (see trust/project-settings.ts):
 * where model requests go, language-server commands, loosening permission
 * rules, programs and credentials a cloned repository could otherwise choose.
 */
export interface IgnoredSetting {
  /** The key as shown: `providers.openai.base_url`, `permission.bash["npm *"]`. */
  readonly key: string
  /** The key's parts in the file (a permission pattern is one part). */
  readonly path: ReadonlyArray<string>
  readonly value: unknown
  /** Never trusted, or changed since it was. */
  readonly trust: "untrusted" | "changed"
  /** The project file. */
  readonly file: string
}

const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** One setting as the notices list it: `providers.openai.base_url: "http://…"`. */
export const showIgnored = (s: Pick<IgnoredSetting, "key" | "value">): string => `${s.key}: ${shown(s.value)}`

/**
 * The one-line notice for ignored project settings (run's stderr, the stream-json warning, the chat banner,
 * `anvil config`), or undefined when nothing was ignored. `only` narrows it to one section's keys.
 */
export const ignoredSettingsNotice = (ignored: ReadonlyArray<IgnoredSetting> | undefined, only?: string): string | undefined => {
  const list = (ignored ?? []).filter((s) => only === undefined || s.path[0] === only)
  if (list.length === 0) return undefined
  const changed = list.every((s) => s.trust === "changed")
  const one = list.length === 1
  return (
    `the project's anvil.json (${list[0]!.file}) sets ${list.map(showIgnored).join(", ")}, but ${one ? "that setting" : "those settings"} ${
      changed ? `changed since you trusted ${one ? "it" : "them"}` : `${one ? "is" : "are"} not trusted`
    }, so ${one ? "it was" : "they were"} ignored. Review ${one ? "it" : "them"}, then run 'anvil config trust' to apply ${one ? "it" : "them"} in this project ` +
    `(or put ${one ? "it" : "them"} in your own ~/.config/anvil/anvil.json).`
  )
}

/**
 * Whether the project file (the layers' "project file") has settings that may need the user's trust, or lists
 * that add to the user's (see trust/project-settings.ts): only then is that module loaded.
 */
export const projectMayNeedTrust = (layers: ReadonlyArray<{ readonly source: string; readonly data: Readonly<Record<string, unknown>> }>): boolean => {
  const data = layers.find((l) => l.source === "project file")?.data
  if (!data) return false
  const tools = data.tools as Record<string, Record<string, unknown> | undefined> | undefined
  const plugins = data.plugins
  const pluginKeys = ["options", "hook_timeout_ms", "load_timeout_ms", "call_timeout_ms", "disabled", "paths"]
  return data.providers !== undefined || data.permission !== undefined || data.lsp !== undefined || data.mcp !== undefined ||
    (plugins !== undefined && (!isRecord(plugins) || pluginKeys.some((k) => plugins[k] !== undefined))) ||
    (isRecord(data.skills) && data.skills.paths !== undefined) ||
    (typeof tools === "object" && tools !== null && (tools.grep?.rg_path !== undefined || tools.bash?.shell !== undefined || tools.fetch?.credentials !== undefined || tools.fetch?.verify_tls === false))
}

/**
 * Languages whose server command the project file sets but the user has not trusted: language → the notice that
 * says so. No server starts for them (a built-in one would not be what the project asked for, and saying why helps more).
 */
export const untrustedLanguageServers = (config: {
  readonly data: Readonly<Record<string, unknown>>
  readonly ignored?: ReadonlyArray<IgnoredSetting> | undefined
}): Readonly<Record<string, string>> => {
  const out: Record<string, string> = {}
  for (const s of config.ignored ?? []) {
    if (s.path[0] !== "lsp" || s.path[1] === undefined || out[s.path[1]] !== undefined) continue
    const language = s.path[1]
    // A server your own file names still runs (without the project's env or options, which were left out).
    const entry = isRecord(config.data.lsp) ? config.data.lsp[language] : undefined
    if (isRecord(entry) && entry.command !== undefined) continue
    // Only the project's env or options left out: the built-in server runs without them.
    if (!config.ignored!.some((i) => i.path[0] === "lsp" && i.path[1] === language && (i.path[2] === "command" || i.path[2] === "args"))) continue
    out[language] = ignoredSettingsNotice(config.ignored!.filter((i) => i.path[0] === "lsp" && i.path[1] === language))!
  }
  return out
}
