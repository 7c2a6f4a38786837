import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { parseJsonc } from "../../src/config/jsonc.ts"

const REPO = join(import.meta.dir, "..", "..")

/**
 * The repository's own example configurations, each with where it comes from:
 * the README's and docs/' ```json(c) blocks (a fragment such as `"permission": {…}`
 * wrapped in braces; blocks with an elision … illustrate something else, the
 * envelope or a stream), and the one-line `anvil.json: {…}` examples in the
 * example plugins' doc comments.
 */
export const exampleConfigs = (): Array<{ readonly from: string; readonly config: unknown }> => {
  const out: Array<{ from: string; config: unknown }> = []
  const docs = ["README.md", ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
  for (const doc of docs) {
    for (const m of readFileSync(join(REPO, doc), "utf8").matchAll(/```jsonc?\n([\s\S]*?)```/g)) {
      const body = m[1]!.trim()
      if (body.includes("…")) continue
      out.push({ from: doc, config: parseJsonc(body.startsWith("{") ? body : `{${body}}`) })
    }
  }
  for (const plugin of readdirSync(join(REPO, "plugins"))) {
    const text = readFileSync(join(REPO, "plugins", plugin, "index.ts"), "utf8")
    for (const m of text.matchAll(/anvil\.json: (\{.*\})/g)) out.push({ from: `plugins/${plugin}/index.ts`, config: parseJsonc(m[1]!) })
  }
  return out
}
