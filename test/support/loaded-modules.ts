import { writeFileSync } from "node:fs"

/**
 * A preload (`bun --preload THIS src/main.ts …`) that writes, when the process
 * exits, every module it evaluated (Bun lists ES modules in require.cache too),
 * one path a line, to the file named by ANVIL_TEST_LOADED_MODULES, and after
 * them each built-in module looked up by process.getBuiltinModule (how anvil
 * loads bun:ffi, bun:jsc and node modules on use) as `builtin:NAME`.
 */
const out = process.env.ANVIL_TEST_LOADED_MODULES
if (out) {
  const builtins = new Set<string>()
  const lookup = process.getBuiltinModule.bind(process)
  process.getBuiltinModule = ((name: string) => {
    builtins.add(name)
    return lookup(name)
  }) as typeof process.getBuiltinModule
  process.on("exit", () => writeFileSync(out, [...Object.keys(require.cache), ...[...builtins].map((b) => `builtin:${b}`)].join("\n")))
}
