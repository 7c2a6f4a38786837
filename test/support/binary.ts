import { join } from "node:path"
import { tempDir } from "./harness.ts"

const repo = join(import.meta.dir, "..", "..")
let built: string | undefined

/** The compiled executable, built once per test process into a temp folder (about two seconds). */
export const anvilBinary = (): string => {
  if (built) return built
  const out = join(tempDir("anvil-bin-"), "anvil")
  const build = Bun.spawnSync([process.execPath, "build.ts", "--outfile", out], { cwd: repo, stdout: "pipe", stderr: "pipe" })
  if (build.exitCode !== 0) throw new Error(`build.ts failed:\n${build.stdout.toString()}${build.stderr.toString()}`)
  built = out
  return out
}

export interface BinaryResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly ms: number
}

/** Runs the compiled binary in `cwd` with a clean environment (HOME inside the project, no color) and optional stdin. */
export const runBinary = async (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly stdin?: string },
): Promise<BinaryResult> => {
  const started = performance.now()
  const proc = Bun.spawn([anvilBinary(), ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: options.cwd, NO_COLOR: "1", ...options.env },
    stdin: options.stdin !== undefined ? new TextEncoder().encode(options.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, stdout, stderr, ms: performance.now() - started }
}
