/**
 * isomorphic-git, imported on its first use. The git tools run the git
 * executable when there is one; loading isomorphic-git (and its zlib, sha and
 * buffer polyfills) at start would cost every call about 5 ms for a fallback
 * it rarely takes.
 */
export const isoGit = (): Promise<typeof import("isomorphic-git")> => import("isomorphic-git")
