import { Console } from "node:console"

/**
 * Keeps a plugin from ending anvil with `process.exit`: the host's cleanup
 * (its processes, the final result line) would be skipped and every other
 * plugin would go down with it. Once a plugin module is loaded, a
 * `process.exit` whose stack passes through a plugin's file throws instead —
 * at import the plugin is then reported as broken, inside `run` or a hook the
 * call ends as INTERNAL_ERROR; anvil's own exits are untouched.
 *
 * It also keeps plugins off standard output, which carries anvil's results
 * (an envelope, stream-json lines): `console.log` and its kin write to stderr
 * once a plugin is loaded (anvil writes its results through Bun's own stdout
 * sink, never through `console`), and a `process.stdout.write` from plugin
 * code goes to stderr too.
 */
const pluginFiles = new Set<string>()
let installed = false

const fromPlugin = (): boolean => {
  const frames = (new Error().stack ?? "").split("\n").slice(2)
  for (const file of pluginFiles) if (frames.some((f) => f.includes(file))) return true
  return false
}

/** `console`'s writing methods, sent to stderr. */
const consoleToStderr = () => {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr })
  for (const name of ["log", "info", "debug", "dir", "dirxml", "table", "group", "groupCollapsed", "groupEnd", "count", "timeLog", "timeEnd"] as const) {
    const method = toStderr[name] as (...args: Array<unknown>) => void
    ;(console as unknown as Record<string, unknown>)[name] = method.bind(toStderr)
  }
}

/** Marks `file` (a plugin's module, its bundle, or its folder ending in "/") as plugin code, and installs the guards once. */
export const guardPluginExit = (file: string): void => {
  pluginFiles.add(file)
  if (installed) return
  installed = true
  const original = process.exit.bind(process)
  process.exit = ((code?: number | string | null) => {
    if (fromPlugin()) {
      throw new Error(`a plugin called process.exit(${code ?? ""}); a plugin may not end anvil (throw, or return an error, instead)`)
    }
    return original(code as number | undefined)
  }) as typeof process.exit
  consoleToStderr()
  const stdout = process.stdout
  const write = stdout.write.bind(stdout)
  stdout.write = ((...args: Parameters<typeof write>) =>
    fromPlugin() ? (process.stderr.write as (...a: Parameters<typeof write>) => boolean)(...args) : write(...args)) as typeof stdout.write
}
