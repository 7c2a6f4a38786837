import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SandboxFacts } from "./policy.ts"
import { makeRunFolder, sweepStaleRunFolders } from "./run-folders.ts"
import { listeningSockets } from "./unix-sockets.ts"
import { privateStateDir, xdgConfigHome } from "../workspace/state-dir.ts"

/**
 * The folders one session's sandbox works with, each made when first needed: the session's temporary folder (TMPDIR
 * inside, removed at the end), the overlay folder for files anvil lays over mounts (outside the session's folder,
 * which commands may write), the project's private state folder, and the facts a policy is built on.
 */
export const sessionFolders = (options: { readonly root: string; readonly env: Readonly<Record<string, string | undefined>>; readonly sessionId: string }) => {
  const home = options.env.HOME
  let sessionTmp: string | undefined
  let sweeping: Promise<number> | undefined
  let overlays: string | undefined
  let count = 0
  const tmp = (): string => {
    if (sessionTmp === undefined) {
      const safe = options.sessionId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)
      sessionTmp = realpathSync(makeRunFolder(safe))
      // What killed anvils left in /tmp goes now, beside this session's first command (not at every start).
      sweeping = sweepStaleRunFolders()
    }
    return sessionTmp
  }
  const facts = (): SandboxFacts => ({
    root: realpathSync(options.root),
    home: home ? (() => { try { return realpathSync(home) } catch { return home } })() : undefined,
    configHome: xdgConfigHome(options.env),
    sessionTmp: tmp(),
  })
  // The project's private state folder (real path), made once; undefined where it cannot be.
  let stateDir: string | undefined | null = null
  const stateFolder = (): string | undefined => {
    if (stateDir === null) {
      const dir = privateStateDir(options.root, options.env)
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 })
        stateDir = realpathSync(dir)
      } catch {
        stateDir = undefined // every walk reads the whole tree
      }
    }
    return stateDir
  }
  return {
    tmp,
    facts,
    stateFolder,
    // The sockets outside are looked up for each command's mounts only (a server may have started since).
    commandFacts: (): SandboxFacts => {
      const state = stateFolder()
      return { ...facts(), sockets: listeningSockets(), env: options.env, ...(state !== undefined ? { stateDir: state } : {}) }
    },
    /** Writes `text` to a new file of the overlay folder, for a mount; removed by the command's finish. */
    overlay: (name: string, text: string): string => {
      const file = join((overlays ??= makeRunFolder("overlay")), `${name}-${++count}`)
      writeFileSync(file, text, { mode: 0o600 })
      return file
    },
    /** A number no other file of this session has (for a marker's name). */
    next: () => ++count,
    close: async () => {
      if (sessionTmp) rmSync(sessionTmp, { recursive: true, force: true })
      // Usually done while the command ran; a one-shot anvil would otherwise exit in the middle of it.
      await sweeping?.catch(() => undefined)
      if (overlays) rmSync(overlays, { recursive: true, force: true })
    },
  }
}
