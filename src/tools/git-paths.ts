import { Effect } from "effect"
import { FileSystem } from "../workspace/file-system.ts"
import type { Workspace } from "../workspace/workspace.ts"

/**
 * A symbolic link named as a git path is the link itself to git (it stores and diffs where the link points and
 * reads nothing through it), so one pointing out of the project may be named; the folders leading to it must
 * still lie inside. This is `p` resolved so when it names a symbolic link, else undefined.
 */
export const linkItself = (workspace: Workspace["Service"], p: string) =>
  Effect.gen(function* () {
    const trimmed = p.replace(/\/+$/, "")
    const cut = trimmed.lastIndexOf("/")
    const base = trimmed.slice(cut + 1)
    if (trimmed !== p || base === "" || base === "." || base === ".." || base === "~") return undefined
    // A folder outside is refused by the usual resolution of the whole path, with its message.
    const folder = yield* workspace.resolve(cut === -1 ? "." : cut === 0 ? "/" : trimmed.slice(0, cut), "paths").pipe(Effect.option)
    if (folder._tag === "None") return undefined
    const absolute = `${folder.value.absolute === "/" ? "" : folder.value.absolute}/${base}`
    const fs = yield* FileSystem
    const info = yield* fs.lstat(absolute).pipe(Effect.option)
    if (info._tag === "None" || info.value.type !== "SymbolicLink") return undefined
    return { absolute, real: absolute, display: workspace.display(absolute), exists: true }
  })

