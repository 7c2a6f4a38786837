import { join } from "node:path"
import { tempDir } from "../support/temp-dirs.ts"

const repo = join(import.meta.dir, "..", "..")
let built: Promise<string> | undefined

/** The compiled executable, built once per test process into a temp folder. */
export const anvilBinary = (): Promise<string> =>
  (built ??= (async () => {
    const out = join(tempDir("anvil-safety-bin-"), "anvil")
    const build = Bun.spawn([process.execPath, "build.ts", "--outfile", out], { cwd: repo, stdout: "pipe", stderr: "pipe" })
    const [text, err, code] = await Promise.all([new Response(build.stdout).text(), new Response(build.stderr).text(), build.exited])
    if (code !== 0) throw new Error(`build.ts failed:\n${text}${err}`)
    return out
  })())

/** Processes whose command line contains `needle` (pgrep -f), this test's own excepted. */
export const processesMatching = (needle: string): Array<number> => {
  const r = Bun.spawnSync(["pgrep", "-f", needle], { stdout: "pipe" })
  return r.stdout
    .toString()
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map(Number)
    .filter((pid) => pid !== process.pid)
}

/** Waits until `check` holds (polling), up to `ms`; returns whether it did. */
export const waitUntil = async (check: () => boolean, ms = 10_000): Promise<boolean> => {
  const end = performance.now() + ms
  while (performance.now() < end) {
    if (check()) return true
    await Bun.sleep(50)
  }
  return check()
}
