import { Context, Layer } from "effect"
import * as nodeFs from "node:fs"

/** The file-system client isomorphic-git works through (its `fs` argument: node's fs module shape). */
export type GitFsClient = typeof nodeFs

/**
 * The file system the git tools hand to isomorphic-git. isomorphic-git needs
 * a node-style fs object rather than an Effect FileSystem; it comes from this
 * service so the tools themselves never import node:fs.
 */
export class GitFs extends Context.Service<GitFs, { readonly fs: GitFsClient }>()("anvil/GitFs") {
  static live = { fs: nodeFs }
  static layer = Layer.succeed(GitFs, GitFs.live)
}
