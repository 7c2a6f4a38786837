import { join } from "node:path"

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts")

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs the real CLI (`bun src/main.ts …`) as a subprocess in `cwd`, with a
 * clean environment: HOME points into the project (no user config), and only
 * the variables given are set.
 */
export const runAnvil = async (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly stdin?: string },
): Promise<CliResult> => {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.cwd, NO_COLOR: "1", ...options.env },
    stdin: options.stdin !== undefined ? new TextEncoder().encode(options.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}

/** The JSON lines of a stream-json run. */
export const jsonLines = (stdout: string): Array<any> =>
  stdout
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l))
