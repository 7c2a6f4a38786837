#!/usr/bin/env bun
// The entry point answers --version and --help without loading the runtime,
// so they cost only the process start; everything else is imported lazily.
import { VERSION } from "./version.ts"
import { GLOBAL_HELP } from "./cli/help-text.ts"

const argv = process.argv.slice(2)
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  process.stdout.write(`anvil ${VERSION}\n`)
} else if (argv.length === 1 && (argv[0] === "--help" || argv[0] === "-h")) {
  process.stdout.write(GLOBAL_HELP)
} else {
  const { main } = await import("./cli/index.ts")
  process.exitCode = await main(argv)
}
