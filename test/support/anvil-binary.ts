import { join } from "node:path"
import { tempDir } from "./temp-dirs.ts"

const repo = join(import.meta.dir, "..", "..")
let built: Promise<string> | undefined

/**
 * The compiled executable, built once per test process (about two seconds)
 * into a temp folder removed when the test run ends: tests of plugins must run what users
 * run, where module resolution differs from `bun src/main.ts`.
 */
export const anvilBinary = (): Promise<string> =>
  (built ??= (async () => {
    const binary = join(tempDir("anvil-bin-"), "anvil")
    const proc = Bun.spawn([process.execPath, "build.ts", "--outfile", binary], { cwd: repo, stdout: "pipe", stderr: "pipe" })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    if (code !== 0) throw new Error(`build.ts failed:\n${out}${err}`)
    return binary
  })())

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
