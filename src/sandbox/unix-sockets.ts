import { lstatSync, readFileSync } from "node:fs"

/**
 * The Unix sockets programs outside the sandbox listen on, by path: the
 * bound pathname sockets of this network namespace (`/proc/net/unix`) that
 * still are sockets here (outside /dev and /proc, which the sandbox has its own of). A listener such as a tmux or screen server, the
 * Docker daemon, a D-Bus bus or systemd's user manager would run what a
 * confined command asks of it outside every rule, so the sandbox lays an
 * empty file over each (connect is refused). Abstract sockets need nothing:
 * they belong to the network namespace, which the command does not share.
 * Relative or deleted paths are left out (nothing can reach them by path).
 */
export const listeningSockets = (table = "/proc/net/unix"): ReadonlyArray<string> => {
  let text: string
  try {
    text = readFileSync(table, "utf8")
  } catch {
    return []
  }
  const out = new Set<string>()
  for (const line of text.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line after seven fields.
    // Every bound one, listening or not: a datagram socket takes messages without listening.
    const path = /^\s*(?:\S+\s+){7}(\/.*)$/.exec(line)?.[1]
    // The sandbox has its own /dev and /proc.
    if (!path || path.startsWith("/dev/") || path.startsWith("/proc/")) continue
    try {
      if (lstatSync(path).isSocket()) out.add(path)
    } catch {
      // gone, or in a folder this process cannot see
    }
  }
  return [...out]
}
