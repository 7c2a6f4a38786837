import { beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"
import { anvilBinary, processesMatching, requireBwrap, runBinary } from "./binary.ts"

// A command's process tree: a fork bomb stops at sandbox.max_processes, and nothing of the tree outlives the
// call, even a daemon that cleared its environment and left its session with the sandbox off.
setDefaultTimeout(60_000)

let binary = ""
beforeAll(async () => {
  requireBwrap()
  binary = await anvilBinary()
}, 120_000)

const LIMIT = 40
const NOBODY = 65534

/** A project and a HOME whose user settings set the limit, owned by `uid` (the binary must be runnable by it too). */
const setup = (uid?: number, limit = LIMIT) => {
  const base = tempDir("anvil-limits-")
  chmodSync(base, 0o755)
  const root = join(base, "proj")
  const home = join(base, "home")
  mkdirSync(root)
  mkdirSync(join(home, ".config", "anvil"), { recursive: true })
  writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ sandbox: { max_processes: limit } }))
  let program = binary
  if (uid !== undefined) {
    program = join(base, "anvil")
    try {
      linkSync(binary, program)
    } catch {
      copyFileSync(binary, program)
    }
    for (const p of [root, home, join(home, ".config"), join(home, ".config", "anvil"), join(home, ".config", "anvil", "anvil.json")]) chownSync(p, uid, uid)
  }
  return { root, home, program }
}

/**
 * The bomb starts in the background under a name of its own (the shell must not wait on a fork it retries); the command then counts, with shell builtins only
 * (no fork is left to it), the processes its sandbox's /proc shows, and spins until the call's timeout.
 */
const bombCommand = (marker: string) => [
  "/bin/bash",
  "-c",
  `bash -c 'b(){ b|b& }; b' ${marker} & s=$SECONDS; while (( SECONDS - s < 2 )); do :; done; shopt -s nullglob; n=(/proc/[0-9]*); echo procs=\${#n[@]}; while :; do :; done`,
]

const runBomb = async (program: string, root: string, home: string, mode: string, asUser?: number) => {
  const marker = `anvilbomb${Math.floor(Math.random() * 1e9)}`
  const argv = [program, "tool", "bash", JSON.stringify({ args: bombCommand(marker), timeout: 8000 }), "--sandbox", mode]
  const r = await runBinary(asUser === undefined ? argv[0]! : "/usr/bin/setpriv", asUser === undefined ? argv.slice(1) : [`--reuid=${asUser}`, `--regid=${asUser}`, "--clear-groups", ...argv], root, { HOME: home })
  await Bun.sleep(200)
  // Once (two suites at once on 2 cores) anvil ended within 3 s with nothing on stdout: say how, should it again.
  if (r.out.trim() === "") throw new Error(`anvil wrote no envelope (exit ${r.code}); stderr:\n${r.err.slice(0, 2000)}`)
  return { envelope: JSON.parse(r.out), left: processesMatching(marker) }
}

describe("process limits and leftovers (compiled binary)", () => {
  test("a fork bomb in a confined command stops at sandbox.max_processes, and the timeout ends all of it", async () => {
    const { root, home, program } = setup()
    const r = await runBomb(program, root, home, "workspace-write")
    expect(r.envelope.data.timed_out).toBe(true)
    const procs = Number(/procs=(\d+)/.exec(r.envelope.data.stdout)?.[1])
    expect(procs).toBeGreaterThan(LIMIT / 2)
    expect(procs).toBeLessThanOrEqual(LIMIT)
    expect(r.left).toEqual([])
  })

  test("the same for a user other than root (RLIMIT_NPROC in the sandbox's user namespace) when the test runs as root", async () => {
    const uid = process.getuid?.() === 0 ? NOBODY : undefined
    const { root, home, program } = setup(uid)
    const r = await runBomb(program, root, home, "workspace-write", uid)
    expect(r.envelope.data.timed_out).toBe(true)
    const procs = Number(/procs=(\d+)/.exec(r.envelope.data.stdout)?.[1])
    expect(procs).toBeGreaterThan(LIMIT / 2)
    expect(procs).toBeLessThanOrEqual(LIMIT)
    expect(r.left).toEqual([])
    const report = JSON.parse((await runBinary(program, ["sandbox", "--json"], root, { HOME: home })).out)
    expect(report.process_limit).toContain(String(LIMIT))
  })

  test("sandbox off for a user other than root without a writable cgroup: RLIMIT_NPROC of the user's count plus the limit holds the command, and a fork bomb ends with the timeout", async () => {
    const uid = process.getuid?.() === 0 ? NOBODY : undefined
    const { root, home, program } = setup(uid)
    const as = (argv: Array<string>) => (uid === undefined ? argv : ["/usr/bin/setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ...argv])
    const [file, ...args] = as([program, "tool", "bash", JSON.stringify({ command: "grep 'Max processes' /proc/self/limits" }), "--sandbox", "off"])
    const r = JSON.parse((await runBinary(file!, args, root, { HOME: home })).out)
    const [soft, hard] = (/Max processes\s+(\d+)\s+(\d+)/.exec(r.data.stdout) ?? []).slice(1).map(Number)
    // anvil's own threads and whatever else runs as that user count too.
    expect(soft).toBeGreaterThan(LIMIT)
    expect(soft).toBeLessThan(LIMIT + 1000)
    expect(hard).toBe(soft!)
    const [doctor, ...dargs] = as([program, "sandbox", "--json", "--sandbox", "off"])
    expect(JSON.parse((await runBinary(doctor!, dargs, root, { HOME: home })).out).process_limit).toContain(`${LIMIT} processes and threads beyond all of yours`)
    const marker = `anvilbomb${Math.floor(Math.random() * 1e9)}`
    const [bf, ...bargs] = as([program, "tool", "bash", JSON.stringify({ command: `bash -c 'b(){ b|b& }; b' ${marker} & sleep 1; echo alive`, timeout: 4000 }), "--sandbox", "off"])
    const bomb = JSON.parse((await runBinary(bf!, bargs, root, { HOME: home })).out)
    expect(bomb.data.stdout).toContain("alive")
    await Bun.sleep(200)
    expect(processesMatching(marker)).toEqual([])
  })

  test("anvil KILLed while its command runs leaves no script of the command's cage behind in TMPDIR, and the command ends", async () => {
    const { root, home } = setup()
    const tmp = tempDir("anvil-killed-tmp-")
    const marker = `${Math.floor(Math.random() * 1e6) + 2_000_000}`
    const proc = Bun.spawn([binary, "tool", "bash", JSON.stringify({ command: `touch started; sleep ${marker}` })], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: tmp },
      stdout: "ignore",
      stderr: "ignore",
    })
    for (let i = 0; i < 200 && !existsSync(join(root, "started")); i++) await Bun.sleep(50)
    expect(existsSync(join(root, "started"))).toBe(true)
    proc.kill("SIGKILL")
    await proc.exited
    for (let i = 0; i < 40 && processesMatching(`sleep ${marker}`).length > 0; i++) await Bun.sleep(50)
    expect(processesMatching(`sleep ${marker}`)).toEqual([])
    expect(readdirSync(tmp).filter((n) => n.startsWith("anvil-park-"))).toEqual([])
  })

  // Without a process limit there is no cgroup: anvil finds the daemons as the orphans it adopted.
  test.each([["adopted as orphans", 0], ["held by the cgroup where anvil can make one", LIMIT]])("sandbox off: a daemon that cleared its environment and left its session (env -i setsid) does not outlive the call, nor the timeout (%s)", async (_, limit) => {
    const { root, home } = setup(undefined, limit)
    const marker = `${Math.floor(Math.random() * 1e6) + 1_000_000}`
    const daemons = `env -i setsid sleep ${marker}1 >/dev/null 2>&1 & (env -i setsid sh -c "sleep ${marker}2 & exec sleep ${marker}3" >/dev/null 2>&1 &)`
    const ended = await runBinary(binary, ["tool", "bash", JSON.stringify({ command: `${daemons}; echo started` }), "--sandbox", "off"], root, { HOME: home })
    expect(JSON.parse(ended.out).data.stdout).toBe("started")
    await Bun.sleep(200)
    expect(processesMatching(`sleep ${marker}`)).toEqual([])
    const timedOut = await runBinary(binary, ["tool", "bash", JSON.stringify({ command: `${daemons}; sleep ${marker}4`, timeout: 1500 }), "--sandbox", "off"], root, { HOME: home })
    expect(JSON.parse(timedOut.out).data?.timed_out ?? JSON.parse(timedOut.out).error?.code).toBeTruthy()
    await Bun.sleep(200)
    expect(processesMatching(`sleep ${marker}`)).toEqual([])
  })
})

describe("abstract Unix sockets with the machine's network (compiled binary)", () => {
  test('sandbox.network "on": an abstract socket bound outside is refused (Landlock scope), the command\'s own work; where the kernel cannot, anvil sandbox says they are reachable', async () => {
    const base = tempDir("anvil-abstract-")
    const root = join(base, "proj")
    const home = join(base, "home")
    mkdirSync(root)
    mkdirSync(join(home, ".config", "anvil"), { recursive: true })
    writeFileSync(join(home, ".config", "anvil", "anvil.json"), JSON.stringify({ sandbox: { network: "on" } }))
    const name = `anvil-test-abstract-${process.pid}-${Math.floor(Math.random() * 1e9)}`
    const server = Bun.listen({ unix: `\0${name}`, socket: { open: (s) => void s.end("hello from outside\n"), data: () => undefined } })
    try {
      const client = [
        "import socket",
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)",
        "try:",
        `    s.connect("\\0${name}"); print("outside:", s.recv(100).decode().strip())`,
        "except OSError as e: print('outside: refused', e.errno)",
        "t = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); t.bind('\\0' + 'own-${name}'); t.listen(1)",
        "u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); u.connect('\\0' + 'own-${name}'); print('own: ok')",
      ].join("\n")
      writeFileSync(join(root, "client.py"), client)
      const report = JSON.parse((await runBinary(binary, ["sandbox", "--json"], root, { HOME: home })).out)
      const r = JSON.parse((await runBinary(binary, ["tool", "bash", JSON.stringify({ command: "python3 client.py" })], root, { HOME: home })).out)
      if (report.abstract_sockets.startsWith("unreachable")) {
        expect(r.data.stdout).toBe("outside: refused 1\nown: ok")
      } else {
        expect(report.abstract_sockets).toContain("REACHABLE")
        expect(r.data.stdout).toBe("outside: hello from outside\nown: ok")
      }
    } finally {
      server.stop(true)
    }
  })
})
