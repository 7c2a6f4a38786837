import type { ShellRequest } from "../../src/shell/run-shell.ts"

/** A shell request with test defaults (short grace and drain times, the caller's PATH), changed by `more`. */
export const shellRequest = (more: Partial<ShellRequest>): ShellRequest => ({
  workdir: ".",
  shell: "/bin/sh",
  env: { PATH: process.env.PATH },
  timeoutMs: 10_000,
  maxTimeoutMs: 60_000,
  killGraceMs: 200,
  drainMs: 200,
  budgetBytes: 4096,
  budgetLines: 100,
  maxSpillBytes: 10_000_000,
  unconfined: false,
  ...more,
})
