/**
 * A Claude Code hook matcher ("Bash", "Edit|Write", "*", "", a regex) as a test on names, or why it is not a valid
 * regular expression. Such a matcher selects nothing (as in Claude Code), and whoever reads it reports it: a plugin's
 * report, the Agent SDK host's notice.
 */
export const compileMatcher = (matcher: string): { readonly selects: (name: string) => boolean } | { readonly problem: string } => {
  if (matcher === "" || matcher === "*") return { selects: () => true }
  try {
    const re = new RegExp(`^(?:${matcher})$`)
    return { selects: (name) => re.test(name) }
  } catch (e) {
    return { problem: (e as Error).message.replace(/^Invalid regular expression: /, "") }
  }
}
