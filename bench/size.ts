import { statSync } from "node:fs"
import type { BenchGroup } from "./lib/context.ts"
import { mib } from "./lib/report.ts"

/** The executable's size (the Bun runtime, anvil's bytecode, the skills and rg). */
export const size: BenchGroup = {
  name: "size",
  description: "the size of dist/anvil",
  run: async (ctx) => {
    const bytes = statSync(ctx.binary).size
    const bun = Bun.which("bun", { PATH: `${ctx.repo}/node_modules/.bin` })
    const bunBytes = bun ? statSync(bun).size : undefined
    return [
      {
        name: "binary size",
        value: `${(bytes / 1e6).toFixed(1)} MB`,
        ...(bunBytes ? { reference: `bun ${(bunBytes / 1e6).toFixed(1)} MB`, ratio: bytes / bunBytes } : {}),
        targets: [{ label: "< 120 MB", pass: bytes < 120e6 }],
        note: `${bytes} bytes (${mib(bytes)})`,
      },
    ]
  },
}
