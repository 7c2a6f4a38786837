import { Effect } from "effect"
import { similarPaths } from "../workspace/similar-paths.ts"
import { PathNotFound } from "./files-error.ts"

/** Fails with PathNotFound for `absolute`, naming the similar files (or folders) that do exist. */
export const missingPath = (kind: "file" | "dir", absolute: string, shown: string, why: string) =>
  Effect.flatMap(similarPaths(absolute, { kind }), (suggestions) => Effect.fail(new PathNotFound({ kind, shown, suggestions, why })))
