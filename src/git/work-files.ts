import { attributeReader } from "./attributes.ts"
import { hasCrlfText, inboundEol, toStored } from "./eol.ts"
import { excludeJudge } from "./excludes.ts"
import { quotePath } from "./quote-path.ts"
import { refuse } from "./work-tree-fs.ts"

/** Where a repository is and what of the user's git settings the built-in reader honours. */
export interface WorkTreeSetup {
  readonly dir: string
  readonly commondir: string
  /** The git config settings in force (the user's files, then the repository's). */
  readonly settings: ReadonlyMap<string, string>
  /** The user's environment (HOME, XDG_CONFIG_HOME) for the default global files. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** A file's text, or undefined when there is none. */
  readonly read: (path: string) => string | undefined
}

/** A user file named in git config: `~/` is the home folder. */
const userPath = (value: string | undefined, home: string | undefined): string | undefined =>
  value === undefined || value === "" ? undefined : value.startsWith("~/") && home !== undefined ? `${home}${value.slice(1)}` : value

/** A file under git's user config folder: $XDG_CONFIG_HOME/git/NAME, else ~/.config/git/NAME. */
const xdgGitFile = (env: WorkTreeSetup["env"], name: string): string | undefined => {
  const base = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== "" ? env.XDG_CONFIG_HOME : env.HOME !== undefined ? `${env.HOME}/.config` : undefined
  return base === undefined ? undefined : `${base}/git/${name}`
}

/**
 * How the built-in reader sees working-tree files as git does: which
 * untracked paths are excluded (with the user's excludes file), and the
 * content git would store for a file (line endings converted as
 * core.autocrlf and the text / eol attributes ask) and its blob id.
 */
export const workTreeRules = (setup: WorkTreeSetup) => {
  const home = setup.env.HOME
  const attrs = attributeReader(setup.read, {
    dir: setup.dir,
    commondir: setup.commondir,
    globalFile: userPath(setup.settings.get("core.attributesfile"), home) ?? xdgGitFile(setup.env, "attributes"),
  })
  const excludes = excludeJudge(setup.read, {
    dir: setup.dir,
    commondir: setup.commondir,
    excludesFile: userPath(setup.settings.get("core.excludesfile"), home) ?? xdgGitFile(setup.env, "ignore"),
  })
  const autocrlf = setup.settings.get("core.autocrlf")
  const EOL_ATTRIBUTES = ["text", "crlf", "eol", "filter", "working-tree-encoding", "ident"]
  /**
   * The content git stores for the working-tree file `path` holding `bytes`;
   * `indexed` reads the index's copy (only asked for when git would look).
   */
  const stored = (path: string, bytes: Uint8Array, indexed: () => Promise<Uint8Array | undefined>): Promise<Uint8Array> => {
    const a = attrs.attributes(path, EOL_ATTRIBUTES)
    const filter = a.get("filter")
    // A clean filter (git-lfs and the like) is a program git runs; without git its output cannot be known.
    if (typeof filter === "string" && (setup.settings.has(`filter.${filter}.clean`) || setup.settings.has(`filter.${filter}.process`))) {
      refuse(`the file ${quotePath(path)} goes through the "${filter}" filter (filter.${filter}.clean), which the built-in git reader cannot run`)
    }
    // Re-encoding (UTF-16 files kept as UTF-8) and $Id$ collapsing are not done here: refused rather than compared wrongly.
    const encoding = a.get("working-tree-encoding")
    if (typeof encoding === "string") refuse(`the file ${quotePath(path)} is kept in ${encoding} (working-tree-encoding), which the built-in git reader does not convert`)
    if (a.get("ident") === true && Buffer.from(bytes).includes("$Id:")) refuse(`the file ${quotePath(path)} has an expanded $Id$ (the ident attribute), which the built-in git reader does not collapse`)
    if (!bytes.includes(13)) return Promise.resolve(bytes)
    const action = inboundEol({ text: a.get("text"), crlf: a.get("crlf"), eol: a.get("eol") }, autocrlf)
    return toStored(bytes, action, () => indexed().then((b) => b !== undefined && hasCrlfText(b)))
  }
  /**
   * Whether the `diff` attribute makes `path` binary (`-diff`, `binary`, or
   * a driver with diff.<driver>.binary) or text (`diff`) for diffs;
   * undefined: git guesses from the content.
   */
  const diffBinary = (path: string): boolean | undefined => {
    const value = attrs.attributes(path, ["diff"]).get("diff")
    if (typeof value !== "string") return value === undefined ? undefined : !value
    const setting = setup.settings.get(`diff.${value.toLowerCase()}.binary`)
    return setting === undefined ? undefined : /^(true|yes|on|1)$/i.test(setting)
  }
  return { excluded: excludes.excluded, stored, diffBinary }
}

export type WorkTreeRules = ReturnType<typeof workTreeRules>

/** The blob id git gives `content` (SHA-1 of "blob <size>\0" and the bytes). Bun's hasher: node:crypto costs every git call its load. */
export const blobId = (content: Uint8Array): string =>
  new Bun.CryptoHasher("sha1").update(`blob ${content.length}\0`).update(content).digest("hex")
