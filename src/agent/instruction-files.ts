import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from "node:fs"
import { basename, join, sep } from "node:path"

/** Bytes of one instruction file read at most (the prompt keeps 16,000 characters of them all). */
const MAX_INSTRUCTION_BYTES = 256 * 1024

/** The names an instruction file is found by (AGENTS.md, CLAUDE.md): a link to another folder's is followed. */
const INSTRUCTION_NAMES = new Set(["AGENTS.md", "CLAUDE.md"])

const realOr = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/**
 * The text of the project's instruction file `name` (AGENTS.md, CLAUDE.md, .claude/CLAUDE.md), or "" when
 * there is none. It goes into every system prompt, so a cloned repository must not make it read something
 * else of the user's: a link that leaves the project is followed only to another folder's AGENTS.md or
 * CLAUDE.md (shared instructions of a monorepo), never to `~/.ssh/id_rsa`; only a regular file is read
 * (a FIFO or `/dev/zero` would hang the start), and only its first 256 KiB.
 */
export const readInstructionFile = (root: string, name: string): string => {
  let real: string
  try {
    real = realpathSync(join(root, name))
  } catch {
    return ""
  }
  const top = realOr(root)
  if (!real.startsWith(`${top}${sep}`) && !INSTRUCTION_NAMES.has(basename(real))) return ""
  let fd: number | undefined
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK)
    const info = fstatSync(fd)
    if (!info.isFile()) return ""
    const buffer = Buffer.alloc(Math.min(info.size, MAX_INSTRUCTION_BYTES))
    const read = readSync(fd, buffer, 0, buffer.length, 0)
    return buffer.subarray(0, read).toString("utf8")
  } catch {
    return ""
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
