import { existsSync, mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"

/** The command that installs bubblewrap, for a test that cannot find it. */
export const INSTALL_BWRAP = "apt-get install bubblewrap (or run test/setup.sh)"

/** Fails (never skips) when bubblewrap is missing: the sandbox tests need the real thing. */
export const requireBwrap = (): string => {
  const bwrap = Bun.which("bwrap")
  if (!bwrap) throw new Error(`bubblewrap (bwrap) is not installed; install it: ${INSTALL_BWRAP}`)
  return bwrap
}

const repo = join(import.meta.dir, "..", "..")

/** Builds the executable once into a temp folder (about two seconds). */
export const buildBinary = (): string => {
  const binary = join(tempDir("anvil-sandbox-build-"), "anvil")
  const build = Bun.spawnSync([process.execPath, "build.ts", "--outfile", binary], { cwd: repo, stdout: "pipe", stderr: "pipe" })
  if (build.exitCode !== 0) throw new Error(`build.ts failed:\n${build.stdout}${build.stderr}`)
  return binary
}

export interface Ran {
  readonly code: number
  readonly out: string
  readonly err: string
}

/** Runs the binary in `cwd` with a clean environment (HOME given, PATH as here unless set). */
export const runBinary = async (binary: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string>): Promise<Ran> => {
  const proc = Bun.spawn([binary, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  })
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { code, out, err }
}

/** A folder of links to the given programs: a PATH without bwrap. */
export const pathWithout = (programs: ReadonlyArray<string>): string => {
  const dir = tempDir("anvil-path-")
  for (const name of programs) {
    const found = Bun.which(name)
    if (found && !existsSync(join(dir, name))) symlinkSync(found, join(dir, name))
  }
  mkdirSync(join(dir, "empty"), { recursive: true })
  return dir
}

/** Processes whose command line contains `marker`. */
export const processesWith = (marker: string): Array<number> => {
  const r = Bun.spawnSync(["pgrep", "-f", marker], { stdout: "pipe" })
  return r.stdout
    .toString()
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(Number)
    .filter((pid) => pid !== process.pid)
}
