import { describe, expect, test } from "bun:test"
import { appendFileSync, ftruncateSync, openSync } from "node:fs"
import { join } from "node:path"
import { LiveOutput } from "../../src/shell/live-output.ts"
import { tempDir } from "../support/harness.ts"

// A running command's two stream files, copied into one background output as they grow (a moved command's).

const streams = () => {
  const dir = tempDir()
  const paths = [join(dir, "stdout"), join(dir, "stderr")]
  const fds = paths.map((p) => openSync(p, "w+"))
  return { paths, fds }
}

describe("LiveOutput", () => {
  test("what was written before the move comes at once, then what is new at each look; stdout's new part before stderr's", () => {
    const { paths, fds } = streams()
    const live = new LiveOutput()
    live.attach(fds)
    appendFileSync(paths[0]!, "out 1\n")
    appendFileSync(paths[1]!, "err 1\n")
    let copied = ""
    live.follow((b) => (copied += new TextDecoder().decode(b)), 1 << 20)
    expect(copied).toBe("out 1\nerr 1\n")
    appendFileSync(paths[1]!, "err 2\n")
    appendFileSync(paths[0]!, "out 2\n")
    live.pump()
    expect(copied).toBe("out 1\nerr 1\nout 2\nerr 2\n")
    // The command cut its own stdout: what it writes next is copied from the file's start.
    ftruncateSync(fds[0]!, 0)
    appendFileSync(paths[0]!, "again\n")
    live.detach()
    expect(copied).toBe("out 1\nerr 1\nout 2\nerr 2\nagain\n")
    // Let go: nothing more is copied.
    appendFileSync(paths[0]!, "after\n")
    live.pump()
    expect(copied.endsWith("again\n")).toBe(true)
    expect(live).toMatchObject({ attached: true, overflowed: false })
  })

  test("a move before the command started follows it from its start; past the room nothing more is copied and the overflow is said", () => {
    const { paths, fds } = streams()
    const live = new LiveOutput()
    let copied = ""
    live.follow((b) => (copied += new TextDecoder().decode(b)), 10)
    expect(live.attached).toBe(false)
    live.attach(fds)
    appendFileSync(paths[0]!, "0123456789abcdef\n")
    live.pump()
    expect(copied).toBe("0123456789")
    expect(live.overflowed).toBe(true)
  })

  test("never attached (no file capture): nothing to copy, and the caller knows it", () => {
    const live = new LiveOutput()
    let calls = 0
    live.follow(() => calls++, 100)
    live.detach()
    expect(calls).toBe(0)
    expect(live.attached).toBe(false)
  })
})
