import { existsSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { tempDir } from "../support/harness.ts"

const repo = join(import.meta.dir, "..", "..")
/** Where the npm devDependencies put bash-language-server and pyright-langserver. */
export const npmBin = join(repo, "node_modules", ".bin")

const onPath = (name: string, path: string) => path.split(":").some((d) => d !== "" && existsSync(join(d, name)))

/**
 * Fails (never skips) when a server or helper the tests use is missing, naming
 * the command that installs it: test/setup.sh installs the Debian ones, npm ci
 * the npm ones.
 */
export const requireServers = () => {
  const path = `${process.env.PATH ?? ""}:${npmBin}`
  const missing: Array<string> = []
  if (!onPath("pylsp", path)) missing.push("pylsp: apt-get install python3-pylsp")
  if (!onPath("shellcheck", path)) missing.push("shellcheck: apt-get install shellcheck")
  if (Bun.spawnSync(["/usr/bin/python3", "-c", "import pyflakes"]).exitCode !== 0) missing.push("pyflakes: apt-get install python3-pyflakes")
  if (!existsSync(join(npmBin, "bash-language-server"))) missing.push("bash-language-server: npm ci")
  if (!existsSync(join(npmBin, "pyright-langserver"))) missing.push("pyright-langserver: npm ci")
  if (missing.length > 0) throw new Error(`LSP tests need these (bash test/setup.sh installs the Debian ones):\n${missing.join("\n")}`)
}

/** A PATH with the system folders and the npm servers. */
export const fullPath = () => `${npmBin}:${process.env.PATH ?? "/usr/bin:/bin"}`

/** A PATH holding only `node` (npm servers need it) and the npm servers: no pylsp, no shellcheck. */
export const npmOnlyPath = () => {
  const dir = join(tempDir("anvil-lsp-bin-"), "bin")
  mkdirSync(dir)
  const node = Bun.which("node")
  if (!node) throw new Error("node is missing (the npm language servers run on it): install Node.js")
  symlinkSync(node, join(dir, "node"))
  return `${dir}:${npmBin}`
}

/** Processes whose working directory is inside `root` (language servers run there). */
export const processesIn = (root: string): Array<number> => {
  const out: Array<number> = []
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`)
      if (cwd === root || cwd.startsWith(`${root}/`)) out.push(Number(name))
    } catch {
      // gone or not ours
    }
  }
  return out
}
