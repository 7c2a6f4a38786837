import { writeFileSync } from "node:fs"

/**
 * A preload (`bun --preload THIS src/main.ts …`) that writes, when the process
 * exits, every module it evaluated (Bun lists ES modules in require.cache too),
 * one path a line, to the file named by ANVIL_TEST_LOADED_MODULES.
 */
const out = process.env.ANVIL_TEST_LOADED_MODULES
if (out) process.on("exit", () => writeFileSync(out, Object.keys(require.cache).join("\n")))
