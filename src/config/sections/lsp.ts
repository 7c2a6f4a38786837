import { Schema } from "effect"
import { Count, Names, NonNegative, setting, type ConfigSection } from "../section.ts"

/** Defaults of the `lsp` settings that are not languages. */
export const LSP_DEFAULTS = {
  idle_timeout_ms: 300_000,
  max_restarts: 3,
  diagnostics_wait_ms: 10_000,
  request_timeout_ms: 15_000,
  start_timeout_ms: 30_000,
} as const

/** Keys of the `lsp` section that are settings; every other key names a language. */
export const LSP_SETTING_KEYS = ["enabled", "after_edit", ...(Object.keys(LSP_DEFAULTS) as Array<keyof typeof LSP_DEFAULTS>)] as const

const Language = Schema.Struct({
  command: setting(Schema.Union([Schema.String, Names()]), "The server: a program name (with args) or an array of program and arguments."),
  args: setting(Names(), "Arguments when command is a string."),
  extensions: setting(Names(), "File extensions of the language (.py)."),
  rootMarkers: setting(Names(), "Files that mark a language root (pyproject.toml)."),
  initializationOptions: setting(Schema.Unknown, "Sent to the server in initialize."),
  env: setting(Schema.Record(Schema.String, Schema.String), "Extra environment variables of the server."),
  languageId: setting(Schema.String, "The LSP language id (default: the key)."),
  name: setting(Schema.String, "The server's name in messages."),
  install: setting(Schema.String, "The hint shown when the command is missing."),
  disabled: setting(Schema.Boolean, "true turns this language off."),
  enabled: setting(Schema.Boolean, "false turns this language off."),
})

const notASetting = new RegExp(`^(?!(?:${LSP_SETTING_KEYS.join("|")})$)`)

/** Language servers: settings, and languages by key (a built-in language keeps the fields not given). */
export const lspSection: ConfigSection = {
  fields: () => ({
    lsp: setting(
      Schema.Union([
        Schema.Literal(false),
        Schema.StructWithRest(
          Schema.Struct({
            enabled: setting(Schema.Boolean, "false turns every server off.", true),
            after_edit: setting(Schema.Boolean, "write/edit/multiedit/patch report the new errors of the files they change.", true),
            idle_timeout_ms: setting(Count(), "A server idle this long is stopped.", LSP_DEFAULTS.idle_timeout_ms),
            max_restarts: setting(NonNegative(), "Restarts of a crashed server per session.", LSP_DEFAULTS.max_restarts),
            diagnostics_wait_ms: setting(Count(), "How long diagnostics are awaited.", LSP_DEFAULTS.diagnostics_wait_ms),
            request_timeout_ms: setting(Count(), "How long one request may take.", LSP_DEFAULTS.request_timeout_ms),
            start_timeout_ms: setting(Count(), "How long a server may take to start.", LSP_DEFAULTS.start_timeout_ms),
          }),
          [Schema.Record(Schema.String.check(Schema.isPattern(notASetting)), Language)],
        ),
      ]),
      "Language servers (false turns them all off).",
    ),
  }),
}
