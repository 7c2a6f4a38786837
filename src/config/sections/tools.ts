import { Schema } from "effect"
import { Count, Names, setting, type ConfigSection, type SettingFields } from "../section.ts"

/** Defaults for `tools.read.*`. */
export const READ_DEFAULTS = {
  default_limit: 50,
  max_limit: 200,
  /** Characters shown of one line; the rest is cut with a marker. */
  max_line_length: 2000,
  /** Files up to this size get an exact total_lines (a newline count); larger ones only when the read reaches both ends. */
  count_max_bytes: 64 * 1024 * 1024,
  /** UTF-16 files are decoded whole; larger ones are refused. */
  utf16_max_bytes: 16 * 1024 * 1024,
} as const

/** Defaults for `tools.list.*`. */
export const LIST_DEFAULTS = { default_limit: 100, max_limit: 200 } as const

/** Defaults for `tools.glob.*`. */
export const GLOB_DEFAULTS = {
  default_limit: 50,
  max_limit: 200,
  /** Circuit breaker: directory entries looked at before the search stops. */
  max_entries: 200_000,
  /** Circuit breaker: milliseconds before the search stops. */
  max_duration_ms: 5_000,
} as const

/** Defaults for `tools.grep.*`. */
export const GREP_DEFAULTS = {
  default_max_matches: 200,
  /** Of those, what the model's text shows when the call sets no max_matches (the rest goes to a spill file). */
  shown_matches: 50,
  max_matches_limit: 2000,
  timeout_ms: 5_000,
  /** Characters of one line shown; longer lines are cut around the match with a marker. */
  max_line_length: 500,
  max_context: 20,
  /** Matching lines kept before the search stops (the totals then become lower bounds). */
  max_stored_lines: 100_000,
  /** Directory entries the in-process search may walk. */
  max_entries: 200_000,
} as const

/** Defaults for `tools.bash.*`. */
export const BASH_DEFAULTS = {
  timeout_ms: 120_000,
  max_timeout_ms: 600_000,
  /** A command run in the background (`run_in_background`) is ended after this long unless the call gives a timeout. */
  background_timeout_ms: 1_800_000,
  max_background_timeout_ms: 7_200_000,
  /** Between TERM and KILL when a process group is ended. */
  kill_grace_ms: 3_000,
  /** How long output held open by background processes is awaited after the command exits. */
  drain_ms: 500,
  /** Characters of output shown to the model (stdout and stderr together). */
  max_output_chars: 30_000,
  /** The saved full output of one stream stops growing here. */
  max_spill_bytes: 2 * 1024 ** 3,
  shell: "/bin/sh",
} as const

/** Defaults for `tools.fetch.*`. */
export const FETCH_DEFAULTS = { timeout_sec: 30, max_size_kb: 45, verify_tls: true } as const

/** Files larger than this are refused by write, edit, multiedit and patch (`tools.<name>.max_file_bytes`). */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
/** Diff lines kept in a result (`tools.<name>.max_diff_lines`); the counts stay exact. */
export const DEFAULT_MAX_DIFF_LINES = 400

/** Count() settings described one by one, each with its default. */
const counts = <K extends string>(defaults: Readonly<Record<K, number | string | boolean>>, about: Readonly<Record<K, string>>): SettingFields =>
  Object.fromEntries(
    Object.entries<string>(about).map(([key, text]) => {
      const fallback = defaults[key as K]
      const schema = typeof fallback === "string" ? Schema.String : typeof fallback === "boolean" ? Schema.Boolean : Count()
      return [key, setting(schema, text, fallback)]
    }),
  )

const fileLimits = (diff: boolean) => {
  const fields: SettingFields = {
    max_file_bytes: setting(Count(), "Existing files over this size are refused.", DEFAULT_MAX_FILE_BYTES),
    ...(diff ? { max_diff_lines: setting(Count(), "Diff lines kept in the result (the counts stay exact).", DEFAULT_MAX_DIFF_LINES) } : {}),
  }
  return Schema.Struct(fields)
}

const tool = (fields: SettingFields, about: string) => setting(Schema.Struct(fields), about)

/** Limits of each built-in tool. */
export const toolsSection: ConfigSection = {
  fields: () => ({
    tools: setting(
      Schema.Struct({
        read: tool(
          {
            ...counts(READ_DEFAULTS, {
              default_limit: "Lines read when no limit is given.",
              max_limit: "The largest limit a call may ask for.",
              max_line_length: "Characters shown of one line.",
              count_max_bytes: "Files up to this size get an exact total_lines.",
              utf16_max_bytes: "UTF-16 files larger than this are refused.",
            }),
            max_bytes: setting(Count(), "Bytes of one read's text (default: output.max_bytes)."),
          },
          "The read tool.",
        ),
        list: tool(
          {
            ...counts(LIST_DEFAULTS, { default_limit: "Entries listed when no limit is given.", max_limit: "The largest limit a call may ask for." }),
            default_ignore: setting(Names(), "Folder names list skips (default: search.default_ignore)."),
          },
          "The list tool.",
        ),
        glob: tool(
          counts(GLOB_DEFAULTS, {
            default_limit: "Paths returned when no limit is given.",
            max_limit: "The largest limit a call may ask for.",
            max_entries: "Directory entries looked at before the search stops.",
            max_duration_ms: "Milliseconds before the search stops.",
          }),
          "The glob tool.",
        ),
        grep: tool(
          {
            ...counts(GREP_DEFAULTS, {
              default_max_matches: "Matches returned when no limit is given.",
              shown_matches: "Of those, the matches (or files) the model's text shows when no limit is given; the complete list goes to a saved file.",
              max_matches_limit: "The largest limit a call may ask for.",
              timeout_ms: "Milliseconds before the search stops.",
              max_line_length: "Characters shown of one matching line.",
              max_context: "The most context lines a call may ask for.",
              max_stored_lines: "Matching lines kept before the search stops.",
              max_entries: "Directory entries the built-in search may walk.",
            }),
            engine: setting(Schema.Literals(["auto", "builtin"]), "auto: ripgrep when it can run; builtin: the in-process search.", "auto"),
            rg_path: setting(Schema.String, "An rg to run instead of looking one up (ANVIL_RG_PATH overrides it)."),
          },
          "The grep tool.",
        ),
        bash: tool(
          counts(BASH_DEFAULTS, {
            timeout_ms: "Milliseconds a command may run when no timeout is given.",
            max_timeout_ms: "The longest timeout a call may ask for.",
            background_timeout_ms: "Milliseconds a background command (run_in_background) may run when no timeout is given.",
            max_background_timeout_ms: "The longest timeout a background command may ask for.",
            kill_grace_ms: "Between TERM and KILL when a process group is ended.",
            drain_ms: "How long output held open by background processes is awaited.",
            max_output_chars: "Characters of output shown to the model.",
            max_spill_bytes: "The saved full output of one stream stops growing here.",
            shell: "The shell commands run with.",
          }),
          "The bash tool.",
        ),
        fetch: tool(
          {
            ...counts(FETCH_DEFAULTS, {
              timeout_sec: "Seconds a request may take.",
              max_size_kb: "Kilobytes of text returned to the model (at most output.max_bytes less 5 KB; the rest is saved to a file).",
              verify_tls: "Check TLS certificates.",
            }),
            credentials: setting(
              Schema.Record(
                Schema.String,
                Schema.Struct({
                  bearer_env: setting(Schema.String, "The variable holding a bearer token."),
                  basic_user: setting(Schema.String, "The HTTP Basic user name."),
                  basic_user_env: setting(Schema.String, "The variable holding the HTTP Basic user name."),
                  basic_password_env: setting(Schema.String, "The variable holding the HTTP Basic password."),
                  cookie_env: setting(Schema.String, "The variable holding a Cookie header value."),
                }),
              ),
              "Credentials by host (host:port first, then host name); secrets come from environment variables.",
            ),
          },
          "The fetch tool.",
        ),
        write: setting(fileLimits(true), "The write tool."),
        edit: setting(fileLimits(true), "The edit tool."),
        multiedit: setting(fileLimits(true), "The multiedit tool."),
        patch: setting(fileLimits(false), "The patch tool."),
        on_demand: setting(
          Schema.Boolean,
          "Offer rarely used tools (git, fetch, LSP, multiedit, …; MCP and plugin tools over extension_budget) through load_tools instead of in every model request; false offers every tool always.",
          true,
        ),
        always_offer: setting(Names(), "Tools offered in every model request even when they would be on demand (e.g. [\"git_status\", \"fetch\"])."),
        extension_budget: setting(Count(), "MCP and plugin tools are offered directly while their schemas together take at most this many bytes; beyond it they are on demand.", 6000),
      }),
      "Limits of each built-in tool.",
    ),
  }),
  env: { ANVIL_RG_PATH: "tools.grep.rg_path" },
}
