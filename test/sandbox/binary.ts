import { beforeAll } from "bun:test"
import { existsSync, mkdirSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { anvilBinary as buildBinary } from "../safety/binary.ts"

/** The command that installs bubblewrap, for a test that cannot find it. */
export const INSTALL_BWRAP = "apt-get install bubblewrap (or run test/setup.sh)"

/** Fails (never skips) when bubblewrap is missing: the sandbox tests need the real thing. */
export const requireBwrap = (): string => {
  const bwrap = Bun.which("bwrap")
  if (!bwrap) throw new Error(`bubblewrap (bwrap) is not installed; install it: ${INSTALL_BWRAP}`)
  return bwrap
}

/** The compiled executable (built once per test process; shared with the safety tests). */
export { anvilBinary } from "../safety/binary.ts"

/** The compiled executable for a file's tests, made (and bubblewrap required) before they run: call it in a test. */
export const sandboxBinary = (): (() => string) => {
  let binary = ""
  beforeAll(async () => {
    requireBwrap()
    binary = await buildBinary()
  }, 120_000)
  return () => binary
}
/** Processes whose command line contains a marker (pgrep -f). */
export { processesMatching } from "../safety/binary.ts"

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
