/** How this process starts itself again: the compiled binary alone, or the runtime and the entry script. */
export const selfCommand = (): ReadonlyArray<string> =>
  Bun.main.startsWith("/$bunfs/") || Bun.main === process.execPath ? [process.execPath] : [process.execPath, Bun.main]
