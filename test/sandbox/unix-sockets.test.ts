import { describe, expect, test } from "bun:test"
import { mkdirSync, realpathSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { bwrapArgs } from "../../src/sandbox/bwrap-args.ts"
import { buildPolicy } from "../../src/sandbox/policy.ts"
import type { SandboxSettings } from "../../src/sandbox/settings.ts"
import { listeningSockets } from "../../src/sandbox/unix-sockets.ts"
import { diagnose } from "../../src/sandbox/diagnose.ts"
import { tempDir } from "../support/harness.ts"

// Which Unix sockets of programs outside the sandbox a command gets an empty file over instead.
// The binary test (sandbox.test.ts) shows a real server outside left unreachable.
const settings: SandboxSettings = { mode: "workspace-write", require: false, writable: [], protected: [], denyRead: [], allowRead: [], allowEnv: [], denyEnv: [], maxProcesses: 4096, network: { kind: "off" }, autoAllow: true }

describe("Unix sockets outside the sandbox", () => {
  test("every bound pathname socket of the table that is still a socket, listening or datagram, however its path is spelt; not abstract ones, /dev, /proc, gone or ordinary files", async () => {
    const dir = realpathSync(tempDir("anvil-socks-"))
    const stream = join(dir, "with space.sock")
    const server = Bun.listen({ unix: stream, socket: { data() {} } })
    try {
      const gone = join(dir, "gone.sock")
      const plain = join(dir, "plain")
      writeFileSync(plain, "")
      const table = join(dir, "unix")
      const row = (flags: string, type: string, path: string) => `0000000000000000: 00000002 00000000 ${flags} ${type} 01 123 ${path}`
      writeFileSync(table, [
        "Num       RefCount Protocol Flags    Type St Inode Path",
        row("00010000", "0001", stream),
        row("00000000", "0002", stream),
        row("00010000", "0001", gone),
        row("00010000", "0001", plain),
        row("00010000", "0001", "@/tmp/.X11-unix/X0"),
        row("00000000", "0002", "/dev/log"),
        row("00000000", "0001", "relative.sock"),
        "0000000000000000: 00000003 00000000 00000000 0001 03 629",
        "",
      ].join("\n"))
      expect(listeningSockets(table)).toEqual([stream])
      expect(listeningSockets(join(dir, "no-such-table"))).toEqual([])
      expect(listeningSockets()).toContain(stream)
    } finally {
      server.stop(true)
    }
  })

  test("the policy covers each with /dev/null, last, except anvil's own proxy socket in the session folder and sockets under a hidden folder", () => {
    const root = realpathSync(tempDir("anvil-socks-root-"))
    const home = realpathSync(tempDir("anvil-socks-home-"))
    const sessionTmp = realpathSync(tempDir("anvil-socks-tmp-"))
    mkdirSync(join(home, ".ssh"))
    const outside = "/run/user/0/bus"
    const inRoot = join(root, "dev.sock")
    const sockets = [outside, inRoot, join(sessionTmp, "proxy.sock"), join(home, ".ssh", "agent.sock")]
    const p = buildPolicy(settings, { root, home, configHome: undefined, sessionTmp, sockets })!
    expect(p.hiddenSockets).toEqual([outside, inRoot])
    const args = bwrapArgs({ policy: p, shareNet: false, root: false, cwd: root, file: "/bin/true", args: [] })
    const at = args.indexOf(inRoot)
    expect(args.slice(at - 2, at + 1)).toEqual(["--ro-bind", "/dev/null", inRoot])
    expect(at).toBeGreaterThan(args.indexOf(root))
    expect(at).toBeLessThan(args.indexOf("--chdir"))
    expect(buildPolicy({ ...settings, mode: "read-only" }, { root, home, configHome: undefined, sessionTmp, sockets })!.hiddenSockets).toEqual([outside, inRoot])
  })

  test("what the answer says: a covered socket named by the command when its connection is refused, or one that went away as the sandbox started (nothing ran)", () => {
    const root = realpathSync(tempDir("anvil-socks-diag-"))
    const sessionTmp = realpathSync(tempDir("anvil-socks-diag-tmp-"))
    const socket = "/tmp/tmux-0/default"
    const policy = buildPolicy(settings, { root, home: undefined, configHome: undefined, sessionTmp, sockets: [socket] })!
    const base = { policy, network: { kind: "off" } as const, root, cwd: root, home: undefined, refusedHosts: [] }
    const refused = diagnose({ ...base, output: "ConnectionRefusedError: [Errno 111] Connection refused", command: `python3 client.py ${socket}` })
    expect(refused.map((r) => [r.kind, r.subject])).toEqual([["socket", socket]])
    const gone = diagnose({ ...base, output: `bwrap: Can't create file at ${socket}: Read-only file system` })
    expect(gone[0]?.message).toContain("Nothing ran; run the command again")
    expect(diagnose({ ...base, output: "Connection refused", command: "curl http://x" }).map((r) => r.kind)).toEqual(["network"])
  })
})
