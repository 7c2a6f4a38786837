import { describe, expect, test } from "bun:test"
import { shellExit } from "../../src/process/exit-status.ts"

describe("shellExit: a command's end as a shell shows it", () => {
  test("a death by signal N is 128 + N with the signal named", () => {
    expect(shellExit({ exitCode: null, signal: "SIGKILL" }, false)).toEqual({ code: 137, signal: "SIGKILL" })
    expect(shellExit({ exitCode: null, signal: "SIGSEGV" }, true)).toEqual({ code: 139, signal: "SIGSEGV" })
    expect(shellExit({ exitCode: null, signal: "signal 40" }, false)).toEqual({ code: 168, signal: "signal 40" })
  })

  test("an exit status passes as it is; unconfined, 128 + N is a plain exit (the wait status said so)", () => {
    expect(shellExit({ exitCode: 0, signal: null }, false)).toEqual({ code: 0, signal: null })
    expect(shellExit({ exitCode: 137, signal: null }, false)).toEqual({ code: 137, signal: null })
  })

  test("confined, bubblewrap's 128 + N is read back as the signal; 128 and above 192 are plain statuses", () => {
    expect(shellExit({ exitCode: 143, signal: null }, true)).toEqual({ code: 143, signal: "SIGTERM" })
    expect(shellExit({ exitCode: 130, signal: null }, true)).toEqual({ code: 130, signal: "SIGINT" })
    expect(shellExit({ exitCode: 128, signal: null }, true)).toEqual({ code: 128, signal: null })
    expect(shellExit({ exitCode: 255, signal: null }, true)).toEqual({ code: 255, signal: null })
    expect(shellExit({ exitCode: 2, signal: null }, true)).toEqual({ code: 2, signal: null })
  })
})
