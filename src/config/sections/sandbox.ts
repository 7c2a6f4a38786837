import { Schema } from "effect"
import { Names, setting, type ConfigSection } from "../section.ts"

/** Where tools may reach outside the project root, and the command sandbox bash runs in (src/sandbox). */
export const sandboxSection: ConfigSection = {
  fields: () => ({
    sandbox: setting(
      Schema.Struct({
        allow: setting(Names(), "Extra folders tools may reach (the output folder always is).", []),
        mode: setting(Schema.Literals(["workspace-write", "read-only", "off"]), "The command sandbox's mode.", "workspace-write"),
        require: setting(Schema.Boolean, "Refuse to run commands where the sandbox cannot start.", false),
        writable: setting(Names(), "Folders commands may also write.", []),
        protected: setting(Names(), "Paths in the root kept read-only for commands.", []),
        deny_read: setting(Names(), "Paths commands may not read.", []),
        allow_read: setting(Names(), "Built-in home secrets, and places permission.read rules hide from commands, that commands may read after all (e.g. \"~/.kube/\", \"node_modules/\").", []),
        allow_env: setting(Names(), "Environment variables (glob patterns) commands get although they look secret (e.g. \"GITHUB_TOKEN\").", []),
        deny_env: setting(Names(), "Environment variables (glob patterns) commands never get.", []),
        max_processes: setting(Schema.Int, "The most processes and threads one command may run at once (0: no limit).", 4096),
        network: setting(
          Schema.Union([Schema.Literals(["off", "on"]), Schema.Boolean, Names()]),
          '"off", "on", or host names commands may reach through anvil\'s proxy.',
          "off",
        ),
        auto_allow: setting(Schema.Boolean, "Confined bash calls need no approval.", true),
      }),
      "Folders tools may use outside the project, and the command sandbox.",
    ),
  }),
}
