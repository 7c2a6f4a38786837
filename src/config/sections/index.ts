// Every section of anvil.json, in the order `anvil config` shows them.
// A new section is a file in this folder exporting a `ConfigSection` and one line here.
export { editorSection } from "./editor.ts"
export { agentSection } from "./agent.ts"
export { outputSection } from "./output.ts"
export { sandboxSection } from "./sandbox.ts"
export { permissionSection } from "./permission.ts"
export { toolsSection } from "./tools.ts"
export { searchSection } from "./search.ts"
export { skillsSection } from "./skills.ts"
export { gitSection } from "./git.ts"
export { lspSection } from "./lsp.ts"
export { pluginsSection } from "./plugins.ts"
export { mcpServersSection } from "./mcp-servers.ts"
