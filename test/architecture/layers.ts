import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"

/**
 * The floors of src/, top to bottom (ARCHITECTURE.md explains each). A file may
 * import from its own floor or any floor below it, never above. An entry is a
 * top-level folder or file of src/, or a deeper path that sits on another floor
 * than its folder (the longest matching entry wins).
 */
export const FLOORS: ReadonlyArray<{ readonly name: string; readonly entries: ReadonlyArray<string> }> = [
  { name: "cli", entries: ["main.ts", "cli", "host", "terminal/event-printer.ts"] },
  { name: "agent", entries: ["agent"] },
  { name: "tools", entries: ["tools", "plugins", "mcp", "lsp", "trust", "runtime.ts"] },
  { name: "tool-framework", entries: ["tool-framework", "permission", "terminal"] },
  { name: "domains", entries: ["edit", "patch", "git", "search", "skills", "todo", "net", "llm", "shell", "files"] },
  { name: "base", entries: ["workspace", "process", "output", "config", "sandbox", "embedded"] },
  { name: "protocol", entries: ["protocol", "version.ts", "types.d.ts"] },
]

/** Files that may import ToolError: the tool framework and everything above it. */
const TOOL_ERROR = "protocol/tool-error.ts"
const LOWEST_TOOL_ERROR_FLOOR = FLOORS.findIndex((f) => f.name === "tool-framework")

/** A problem the layer check found, as a sentence naming the files. */
export type Finding =
  | { readonly kind: "upward"; readonly from: string; readonly to: string; readonly text: string }
  | { readonly kind: "cycle"; readonly files: ReadonlyArray<string>; readonly text: string }
  | { readonly kind: "tool-error"; readonly from: string; readonly text: string }
  | { readonly kind: "unknown"; readonly path: string; readonly text: string }

/** Which floor a src-relative path is on (-1: none). */
export const floorOf = (path: string): number => {
  let best = { floor: -1, length: -1 }
  FLOORS.forEach((floor, index) => {
    for (const entry of floor.entries) {
      const matches = path === entry || path.startsWith(`${entry}/`)
      if (matches && entry.length > best.length) best = { floor: index, length: entry.length }
    }
  })
  return best.floor
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"'`;]*?from\s*["']([^"']+)["']|(?:^|[\s;])import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

/** The src-relative files a file imports (relative specifiers only; packages are not layers). */
export const importsOf = (file: string, text: string): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]
    if (spec === undefined || !spec.startsWith(".")) continue
    out.add(normalize(join(dirname(file), spec)))
  }
  return [...out]
}

/** Every check over a set of files (src-relative path → source text). */
export const checkLayers = (files: ReadonlyMap<string, string>): ReadonlyArray<Finding> => {
  const findings: Array<Finding> = []
  const graph = new Map<string, ReadonlyArray<string>>()
  for (const [file, text] of files) {
    const from = floorOf(file)
    if (from === -1) {
      const top = file.split("/")[0]!
      if (!findings.some((f) => f.kind === "unknown" && f.path === top)) {
        findings.push({ kind: "unknown", path: top, text: `src/${top} is on no floor: add it to FLOORS and ARCHITECTURE.md` })
      }
      continue
    }
    const targets = importsOf(file, text)
    graph.set(file, targets.filter((t) => files.has(t)))
    for (const target of targets) {
      const to = floorOf(target)
      if (to !== -1 && to < from) {
        findings.push({ kind: "upward", from: file, to: target, text: `${file} (${FLOORS[from]!.name}) imports ${target} (${FLOORS[to]!.name}), a floor above it` })
      }
      if (target === TOOL_ERROR && from > LOWEST_TOOL_ERROR_FLOOR) {
        findings.push({ kind: "tool-error", from: file, text: `${file} (${FLOORS[from]!.name}) imports ToolError: raise a tagged error and translate it at the tool boundary` })
      }
    }
  }
  for (const cycle of cycles(graph)) findings.push({ kind: "cycle", files: cycle, text: `import cycle: ${[...cycle, cycle[0]].join(" → ")}` })
  return findings
}

/** The strongly connected components with more than one file (or a file importing itself), Tarjan's way. */
const cycles = (graph: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyArray<ReadonlyArray<string>> => {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const out: Array<Array<string>> = []
  const visit = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.reverse())
    }
  }
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v)
  return out
}

/** Every .ts file under `dir`, src-relative, with its text. */
export const readTree = (dir: string): Map<string, string> => {
  const files = new Map<string, string>()
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (name.endsWith(".ts")) files.set(relative(dir, full), readFileSync(full, "utf8"))
    }
  }
  walk(dir)
  return files
}
