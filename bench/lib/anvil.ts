import { capture } from "./measure.ts"
import type { BenchContext } from "./context.ts"

/** The tool names the built binary registers (from `anvil tools --json`). */
export const registeredTools = async (ctx: BenchContext): Promise<ReadonlySet<string>> => {
  const r = await capture([ctx.binary, "tools", "--json"], { env: ctx.env })
  if (r.exitCode !== 0) throw new Error(`anvil tools --json exited with ${r.exitCode}: ${r.stderr}`)
  return new Set((JSON.parse(r.stdout) as Array<{ name: string }>).map((t) => t.name))
}

/** Runs `anvil tool <name> <params>` once and returns the envelope (throws on a non-JSON answer). */
export const toolEnvelope = async (
  ctx: BenchContext,
  cwd: string,
  name: string,
  params: unknown,
): Promise<{ status: string; data: Record<string, unknown>; text: string; error?: { code: string; message: string } }> => {
  const r = await capture([ctx.binary, "tool", name, JSON.stringify(params)], { cwd, env: ctx.env })
  try {
    return JSON.parse(r.stdout)
  } catch {
    throw new Error(`anvil tool ${name} printed no envelope (exit ${r.exitCode}): ${r.stderr}`)
  }
}
