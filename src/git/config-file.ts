// The parser lives beside the workspace (the command sandbox reads core.hooksPath with it too).
export { parseGitConfig } from "../workspace/git-config-file.ts"
