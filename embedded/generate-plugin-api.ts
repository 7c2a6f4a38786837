/**
 * Writes embedded/plugin-api.dts.txt: the type declarations of the plugin API
 * (src/plugins/api.ts) that the binary carries and `anvil plugins init`
 * writes beside a new plugin as anvil-plugin.d.ts. Run after changing the API:
 *
 *   bun embedded/generate-plugin-api.ts
 *
 * (Kept out of build.ts: a full declaration emit takes seconds, the build two.)
 * test/plugins/plugin-api-dts.test.ts fails when the file is stale.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import ts from "typescript"

const root = join(import.meta.dir, "..")
export const DTS_FILE = join(root, "embedded", "plugin-api.dts.txt")

export const generatePluginApiDts = (): string => {
  let out = ""
  const program = ts.createProgram([join(root, "src", "plugins", "api.ts")], {
    declaration: true,
    emitDeclarationOnly: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
  })
  program.emit(undefined, (name, text) => {
    if (name.endsWith("api.d.ts")) out = text
  })
  if (out === "") throw new Error("generate-plugin-api: the declaration emit produced nothing")
  return `// The anvil plugin API (api 1). Generated from anvil's src/plugins/api.ts; do not edit.\n${out}`
}

if (import.meta.main) {
  writeFileSync(DTS_FILE, generatePluginApiDts())
  console.log(`wrote ${DTS_FILE}`)
}
