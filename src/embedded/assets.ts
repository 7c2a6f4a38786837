/**
 * Files that build.ts embeds into the executable, as paths readable inside it
 * (Bun's `$bunfs`). In a source checkout nothing is embedded: `ripgrep` is
 * undefined and `skills` empty, and callers fall back to the repository's
 * skills/ folder and node_modules' ripgrep. build.ts substitutes this module
 * with a generated one when it compiles the binary.
 */
export interface EmbeddedAssets {
  /** The embedded rg executable, gzip-compressed when the path ends in `.gz` (must be extracted before it can be spawned). */
  readonly ripgrep?: string
  /** The ripgrep package version, to key the extraction cache. */
  readonly ripgrepVersion?: string
  /** Built-in skills: skill name → embedded SKILL.md path. */
  readonly skills: Readonly<Record<string, string>>
  /** True inside the compiled executable. */
  readonly compiled: boolean
}

export const embeddedAssets: EmbeddedAssets = { skills: {}, compiled: false }
