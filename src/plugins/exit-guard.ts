/**
 * Keeps a plugin from ending anvil with `process.exit`: the host's cleanup
 * (its processes, the final result line) would be skipped and every other
 * plugin would go down with it. Once a plugin module is loaded, a
 * `process.exit` whose stack passes through a plugin's file throws instead —
 * at import the plugin is then reported as broken, inside `run` or a hook the
 * call ends as INTERNAL_ERROR; anvil's own exits are untouched.
 */
const pluginFiles = new Set<string>()
let installed = false

/** Marks `file` (a plugin's module, its bundle, or its folder ending in "/") as plugin code, and installs the guard once. */
export const guardPluginExit = (file: string): void => {
  pluginFiles.add(file)
  if (installed) return
  installed = true
  const original = process.exit.bind(process)
  process.exit = ((code?: number | string | null) => {
    const stack = new Error().stack ?? ""
    const frames = stack.split("\n").slice(1)
    for (const file of pluginFiles) {
      if (frames.some((f) => f.includes(file))) {
        throw new Error(`a plugin called process.exit(${code ?? ""}); a plugin may not end anvil (throw, or return an error, instead)`)
      }
    }
    return original(code as number | undefined)
  }) as typeof process.exit
}
