import { Effect } from "effect"
import { Config } from "../config/config.ts"
import { embeddedAssets } from "../embedded/assets.ts"
import { PlatformLive } from "../runtime.ts"
import { findRipgrep } from "../search/ripgrep-binary.ts"
import { loadBuiltinSkills } from "../skills/builtin-skills.ts"
import { VERSION } from "../version.ts"
import type { CliIO } from "./output.ts"

/**
 * `anvil self-check` (not listed in the help): proves that the executable can
 * read its embedded skills and run its rg. Prints a JSON report; exit code 0
 * when every built-in skill was read and an rg answered `--version`, else 1.
 * CI runs it against the freshly built binary.
 */
export const selfCheckCommand = async (io: CliIO): Promise<number> => {
  const program = Effect.gen(function* () {
    const skills = yield* loadBuiltinSkills()
    const ripgrep = yield* findRipgrep()
    return { skills, ripgrep }
  }).pipe(Effect.provide(Config.layerFrom({}, io.env)), Effect.provide(PlatformLive))
  const { skills, ripgrep } = await Effect.runPromise(program)
  let rgVersion: string | undefined
  if (ripgrep) {
    const run = Bun.spawnSync([ripgrep.path, "--version"], { stdout: "pipe", stderr: "pipe", stdin: "ignore" })
    if (run.exitCode === 0) rgVersion = run.stdout.toString().split("\n")[0]
  }
  const embeddedSkills = Object.keys(embeddedAssets.skills).length
  const report = {
    version: VERSION,
    compiled: embeddedAssets.compiled,
    skills: skills.map((s) => ({ name: s.name, path: s.path, bytes: new TextEncoder().encode(s.text).length })),
    ripgrep: ripgrep ? { ...ripgrep, version: rgVersion ?? null } : null,
  }
  io.out(`${JSON.stringify(report, null, 2)}\n`)
  const skillsOk = skills.length > 0 && (!embeddedAssets.compiled || skills.length === embeddedSkills)
  return skillsOk && rgVersion !== undefined ? 0 : 1
}
