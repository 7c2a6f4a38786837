import { definePlugin } from "anvil/plugin"

/**
 * Example plugin: hooks that guard bash. `tool.before` refuses commands that
 * match a dangerous pattern (the model is told why and can choose another
 * way); `shell.env` marks every command it lets through. More patterns can be
 * added in anvil.json: { "plugins": { "options": { "bash-guard": { "deny": ["terraform destroy"] } } } }.
 */
const DEFAULT_DENY: ReadonlyArray<{ readonly pattern: RegExp; readonly why: string }> = [
  { pattern: /\brm\s+(-[a-zA-Z]*[rf][a-zA-Z]*\s+)+(\/|~|\$HOME)(\s|$)/, why: "it deletes the root or home folder" },
  { pattern: /\bgit\s+push\b.*\s(--force|-f)(\s|$)/, why: "force-pushing rewrites shared history" },
  { pattern: /\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(sh|bash)\b/, why: "it runs a script from the network unseen" },
  { pattern: /\bmkfs(\.\w+)?\b|\bdd\b.*\bof=\/dev\//, why: "it overwrites a device" },
]

let extraDeny: ReadonlyArray<string> = []

export default definePlugin({
  name: "bash-guard",
  api: 1,
  description: "Refuses dangerous bash commands (rm -rf /, force pushes, curl | sh, writing to devices).",
  setup: ({ options }) => {
    extraDeny = Array.isArray(options.deny) ? options.deny.filter((d): d is string => typeof d === "string") : []
  },
  hooks: {
    "tool.before": ({ tool, params }) => {
      if (tool !== "bash") return undefined
      const command = typeof params.command === "string" ? params.command : Array.isArray(params.args) ? params.args.join(" ") : ""
      const hit = DEFAULT_DENY.find((d) => d.pattern.test(command))
      if (hit) return { deny: `bash-guard refused '${command}': ${hit.why}. Use a narrower command.` }
      const extra = extraDeny.find((d) => command.includes(d))
      if (extra) return { deny: `bash-guard refused '${command}': '${extra}' is on this project's deny list.` }
      return undefined
    },
    "shell.env": () => ({ ANVIL_BASH_GUARD: "1" }),
    "prompt.system": () =>
      "bash-guard is active: recursive deletes of / or ~, force pushes, piping downloads into a shell and writing to devices are refused.",
  },
})
