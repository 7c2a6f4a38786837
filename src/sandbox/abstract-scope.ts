import { openLibc } from "../workspace/libc.ts"
import { SCOPE_COMMAND } from "./relay-command.ts"

/**
 * Abstract Unix sockets (`@name`) live in the network namespace, not in the
 * filesystem, so no mount can cover them. A command that shares the machine's
 * network (`sandbox.network: "on"`) could reach every one bound there — an X
 * server (keystrokes into your terminal), a D-Bus bus, a container runtime —
 * which would run what it asks outside every rule. Landlock's scoping (Linux
 * 6.12, Landlock ABI 6) refuses a connect() to an abstract socket bound
 * outside the caller's Landlock domain: the command's own sockets keep
 * working, sockets bound outside never answer, whenever they were bound.
 *
 * The restriction is taken by the command's own process before it becomes
 * the command: anvil starts itself inside the sandbox as `__sandbox-scope`,
 * sets no_new_privs, restricts itself and execs the command (one exec, no
 * process left in between).
 */

const SYS_LANDLOCK_CREATE_RULESET = 444
const SYS_LANDLOCK_RESTRICT_SELF = 446
const LANDLOCK_CREATE_RULESET_VERSION = 1
const LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1n
const PR_SET_NO_NEW_PRIVS = 38

type Libc = {
  readonly syscall: (n: number, a: number, b: number, c: number) => number | bigint
  readonly prctl: (...a: Array<number>) => number
  readonly execve: (path: number, argv: number, envp: number) => number
}

const libc = (): Libc | undefined =>
  openLibc((t) => ({
    syscall: { args: [t.i64, t.i64, t.i64, t.i64], returns: t.i64 },
    prctl: { args: [t.i32, t.u64, t.u64, t.u64, t.u64], returns: t.i32 },
    execve: { args: [t.ptr, t.ptr, t.ptr], returns: t.i32 },
  })) as Libc | undefined

let abi: number | undefined

/** The kernel's Landlock ABI version (0 where there is none: not Linux, too old, or disabled). */
export const landlockAbi = (): number => {
  if (abi !== undefined) return abi
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return (abi = 0)
  const v = Number(libc()?.syscall(SYS_LANDLOCK_CREATE_RULESET, 0, 0, LANDLOCK_CREATE_RULESET_VERSION) ?? -1)
  return (abi = v > 0 ? v : 0)
}

/** Whether abstract Unix sockets bound outside can be kept out of a command's reach here. */
export const abstractScopeAvailable = (): boolean => landlockAbi() >= 6

/** `self SCOPE_COMMAND file args…`: how a command that shares the network is started. */
export const scopedCommand = (self: ReadonlyArray<string>, file: string, args: ReadonlyArray<string>) => ({
  file: self[0]!,
  args: [...self.slice(1), SCOPE_COMMAND, file, ...args],
})

const cString = (s: string) => Buffer.from(`${s}\0`)

/**
 * Inside the sandbox: restricts this process (Landlock, abstract sockets
 * scoped) and execs `file` with `args`, keeping the environment. Does not
 * return; a restriction that fails runs nothing (exit 126, with the reason).
 */
export const runScoped = (argv: ReadonlyArray<string>): never => {
  const [file, ...args] = argv
  const fail = (why: string): never => {
    process.stderr.write(`anvil ${SCOPE_COMMAND}: ${why}; the command was not run\n`)
    process.exit(126)
  }
  if (!file) return fail("usage: COMMAND [ARGS…]")
  const c = libc()
  if (!c) return fail("no C library to call")
  const { ptr } = process.getBuiltinModule("bun:ffi") as typeof import("bun:ffi")
  if (c.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) !== 0) return fail("prctl(PR_SET_NO_NEW_PRIVS) failed")
  // struct landlock_ruleset_attr { handled_access_fs, handled_access_net, scoped }: nothing but the scope.
  const attr = new BigUint64Array([0n, 0n, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET])
  const fd = Number(c.syscall(SYS_LANDLOCK_CREATE_RULESET, Number(ptr(attr)), attr.byteLength, 0))
  if (fd < 0) return fail("this kernel cannot scope abstract Unix sockets (Landlock ABI 6, Linux 6.12)")
  if (Number(c.syscall(SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0)) !== 0) return fail("landlock_restrict_self failed")
  // The strings must stay referenced until execve has copied them.
  const strings = [file, ...args].map(cString)
  const env = Object.entries(process.env).flatMap(([k, v]) => (v === undefined ? [] : [cString(`${k}=${v}`)]))
  const table = (items: ReadonlyArray<Buffer>) => new BigUint64Array([...items.map((b) => BigInt(ptr(b))), 0n])
  const argvTable = table(strings)
  const envTable = table(env)
  c.execve(ptr(strings[0]!), ptr(argvTable), ptr(envTable))
  return fail(`cannot run ${file}`)
}
