import { join } from "node:path"
import { runProcess, type ProcessResult } from "./anvil-cli.ts"
import { tempDir } from "./temp-dirs.ts"

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

/** Runs the compiled binary in `cwd`, as {@link runProcess}. */
export const runBinary = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly stdin?: string },
): Promise<ProcessResult> => runProcess([anvilBinary(), ...args], options)
