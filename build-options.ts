/**
 * How an executable is compiled: shared by build.ts (dist/anvil) and by the
 * start-up benchmark, which compiles its reference programs exactly as anvil is.
 */
import { dirname, resolve as resolvePath } from "node:path"

/**
 * JavaScriptCore's tier-up thresholds x16 at start: the code of a start-up runs once, and compiling what
 * looks hot in it cost more than it gave back (`anvil tool read`: 19 → 14.5 ms of CPU). src/main.ts puts
 * the normal thresholds back once a command has run for a while.
 */
export const START_JIT_POLICY = 16

/** Bun.build's options for a compiled executable, beyond its entry point, output file and plugins. */
export const EXECUTABLE_BUILD = {
  target: "bun",
  format: "esm",
  minify: true,
  bytecode: true,
  // Code splitting keeps what a command imports lazily out of the chunks every start evaluates
  // (`anvil --version` and `--help` load a few kilobytes, not the whole program).
  splitting: true,
} as const

/**
 * The compile options: .env and bunfig.toml autoloading off (the binary runs inside other people's
 * repositories), the JIT thresholds above. --cwd=/proc/self/cwd (Linux): started in a folder that was
 * removed, Bun's own start-up would stop with its own message before any of anvil runs; given the folder
 * by this path it goes on, and src/main.ts says what is wrong. Elsewhere the working directory is the
 * same folder, read as usual.
 */
export const compileOptions = (outfile: string) => ({
  outfile,
  autoloadDotenv: false,
  autoloadBunfig: false,
  jitPolicy: START_JIT_POLICY,
  ...(process.platform === "linux" ? { execArgv: ["--cwd=/proc/self/cwd"] } : {}),
})

/** Replaces `from` (which must occur exactly once) by `to` in the file `filter` matches; anything else fails the build. */
export const replaceOnce = (build: Bun.PluginBuilder, filter: RegExp, from: string, to: string) =>
  build.onLoad({ filter }, async (args) => {
    const source = await Bun.file(args.path).text()
    const at = source.indexOf(from)
    if (at < 0 || source.indexOf(from, at + 1) >= 0) throw new Error(`build: ${args.path} no longer has '${from}' exactly once (see build-options.ts)`)
    return { contents: source.slice(0, at) + to + source.slice(at + from.length), loader: "js" }
  })

/**
 * effect's fibers carry Node's async context (AsyncLocalStorage) across their suspensions: an AsyncResource
 * from node:async_hooks, looked up when effect loads, made at every suspension and entered at every resume.
 * Nothing in anvil uses AsyncLocalStorage. Without the lookup no context is captured and node:async_hooks is
 * never loaded (`anvil tool read`: 33.0 → 32.7 M instructions, 2160 → 2134 page faults).
 */
export const effectWithoutAsyncContext = (build: Bun.PluginBuilder) =>
  replaceOnce(build, /[\\/]effect[\\/]dist[\\/]internal[\\/]effect\.js$/, 'globalThis.process?.getBuiltinModule?.("node:async_hooks")?.AsyncResource', "undefined")

/**
 * effect's Hex module (loaded with its tracer by every command that runs effect) builds its table of the 16 hex
 * digits with `Uint8Array.from(string, mapFn)` when it loads. JavaScriptCore compiles that builtin on its first use,
 * and nothing else on the way of a tool call uses it: the same table written out saves the compile
 * (`anvil tool read`: 33.9 → 33.4 M instructions).
 */
export const effectHexTableLiteral = (build: Bun.PluginBuilder) =>
  replaceOnce(
    build,
    /[\\/]effect[\\/]dist[\\/]encoding[\\/]Hex\.js$/,
    'Uint8Array.from("0123456789abcdef", c => c.charCodeAt(0))',
    "new Uint8Array([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102])",
  )

/**
 * A text import (`import text from "./read.md" with { type: "text" }`: every tool's description, the system prompt,
 * the plugin API's declarations) becomes a string in the code that imports it. Left to `--compile`, each is a file of
 * its own in the executable, read by a `require` when its importer loads: `anvil tool read` paid that (and the first
 * compile of Bun's require) for read.md, the agent for every tool's. A plugin's onLoad is not told the import's
 * attributes (a .md file's loader is "md" either way), so the importer's own line decides: the skills and rg,
 * imported `with { type: "file" }`, stay files.
 */
export const inlineTextImports = (build: Bun.PluginBuilder) => {
  build.onResolve({ filter: /\.(md|txt)$/ }, async (args) => {
    if (args.namespace !== "file" || !args.importer) return undefined
    const importer = await Bun.file(args.importer).text()
    if (!importer.includes(`from ${JSON.stringify(args.path)} with { type: "text" }`)) return undefined
    return { path: resolvePath(dirname(args.importer), args.path), namespace: "anvil-text" }
  })
  build.onLoad({ filter: /.*/, namespace: "anvil-text" }, async (args) => ({
    contents: `export default ${JSON.stringify(await Bun.file(args.path).text())}`,
    loader: "js",
  }))
}
