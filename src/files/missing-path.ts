import { Effect } from "effect"
import { pathStopOf } from "../workspace/file-in-the-way.ts"
import { PathNotFound } from "./files-error.ts"

/**
 * Fails with PathNotFound for `absolute`, naming the similar files (or folders) that do exist. The search
 * (and the ignore rules it uses) is loaded only here: a call that finds its path never evaluates it.
 */
export const missingPath = (kind: "file" | "dir", absolute: string, shown: string, why: string) =>
  Effect.promise(() => import("../workspace/similar-paths.ts")).pipe(
    Effect.flatMap(({ similarPaths }) => similarPaths(absolute, { kind })),
    Effect.flatMap((suggestions) => Effect.fail(new PathNotFound({ kind, shown, suggestions, why, ...pathStopOf(absolute, shown) }))),
  )
