import { anvilBinary as buildOnce } from "./binary.ts"

/**
 * The compiled executable (built once per test process, shared with ./binary.ts): tests of plugins
 * must run what users run, where module resolution differs from `bun src/main.ts`.
 */
export const anvilBinary = async (): Promise<string> => buildOnce()

export interface BinaryResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs the binary in `cwd` with only the environment given (plus PATH). */
export const runBinary = async (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Record<string, string>; readonly stdin?: string },
): Promise<BinaryResult> => {
  const proc = Bun.spawn([await anvilBinary(), ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", ...options.env },
    stdin: options.stdin !== undefined ? new TextEncoder().encode(options.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr }
}
