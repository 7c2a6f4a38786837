import { createHash } from "node:crypto"

/** Model APIs accept tool names of [A-Za-z0-9_-], at most 64 characters. */
const MAX_NAME = 64
const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_")

/** `mcp__<server>__<tool>`, normalised to the model APIs' name rules (a long name keeps a hash of the whole). */
export const toolNameOf = (server: string, tool: string): string => {
  const name = `mcp__${clean(server)}__${clean(tool)}`
  if (name.length <= MAX_NAME || tool === "") return name
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8)
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`
}

/**
 * The tools of one server whose anvil names differ, the later of a clash named in `skipped`: a server that lists
 * a name twice, or names anvil makes the same (`a.b` and `a_b`; `Echo` and `echo`, as tools are found without
 * regard to case), would offer the model one name twice (an API refuses the request) and a call would reach
 * whichever came first.
 */
export const distinctTools = <T extends { readonly name: string }>(server: string, tools: ReadonlyArray<T>): { kept: Array<T>; skipped: Array<string> } => {
  const first = new Map<string, string>()
  const kept: Array<T> = []
  const skipped: Array<string> = []
  for (const tool of tools) {
    const name = toolNameOf(server, tool.name)
    const earlier = first.get(name.toLowerCase())
    if (earlier === undefined) {
      first.set(name.toLowerCase(), tool.name)
      kept.push(tool)
    } else skipped.push(`${tool.name}: anvil would name it ${name}, as the earlier '${earlier}' (tool names match without regard to case); the first is kept`)
  }
  return { kept, skipped }
}
