import { Effect } from "effect"
import { make, type Path } from "effect/Path"
import { BadArgument } from "effect/PlatformError"
import * as NodePath from "node:path"

const url = () => process.getBuiltinModule("node:url")

/**
 * @effect/platform-node's Path as a plain value (that package offers it only as a layer, and building a
 * layer cost a one-tool call about 0.5 ms of CPU): node:path, with file URLs converted by node:url, which
 * is loaded on the first conversion.
 */
export const nodePath: Path = make({
  ...NodePath,
  fromFileUrl: (u) =>
    Effect.try({ try: () => url().fileURLToPath(u), catch: (cause) => new BadArgument({ module: "Path", method: "fromFileUrl", cause }) }),
  toFileUrl: (p) =>
    Effect.try({ try: () => url().pathToFileURL(p), catch: (cause) => new BadArgument({ module: "Path", method: "toFileUrl", cause }) }),
})
