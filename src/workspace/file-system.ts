import { Context, Effect } from "effect"
import type { FileSystem as FileSystemShape } from "effect/FileSystem"

/**
 * effect's FileSystem service key, made from its string identity ("effect/FileSystem": a context matches
 * keys by that string). Naming the service through effect/FileSystem loads that module, and with it
 * Stream, Channel, Sink and a glob engine: most of what a one-tool call evaluates beyond its own code.
 * The same key and service type as effect's; modules that already load effect's streams may use either.
 */
export const FileSystem: Context.Service<FileSystemShape, FileSystemShape> = Context.Service<FileSystemShape>("effect/FileSystem")
/** effect's FileSystem service type. */
export type FileSystem = FileSystemShape

/** The FileSystem methods that answer with an Effect (all but the stream-returning stream, sink and watch). */
type EffectMethod = {
  [K in keyof FileSystemShape]: FileSystemShape[K] extends (...args: never) => Effect.Effect<unknown, unknown, unknown> ? K : never
}[keyof FileSystemShape]

const EFFECT_METHODS = [
  "access", "chmod", "chown", "copy", "copyFile", "exists", "glob", "link", "lstat", "makeDirectory", "makeTempDirectory",
  "makeTempDirectoryScoped", "makeTempFile", "makeTempFileScoped", "open", "readDirectory", "readDirectoryEntries", "readFile",
  "readFileString", "readLink", "realPath", "remove", "rename", "stat", "symlink", "truncate", "utimes", "writeFile", "writeFileString",
] as const satisfies ReadonlyArray<EffectMethod>

/** A compile error when effect's FileSystem gains an Effect method this list lacks. */
const complete: [Exclude<EffectMethod, (typeof EFFECT_METHODS)[number]>] extends [never] ? true : false = true
void complete

/** Stream-returning methods: only the platform's own file system has them (see {@link lazyFileSystem}). */
const STREAM_METHODS = ["stream", "sink", "watch"] as const satisfies ReadonlyArray<Exclude<keyof FileSystemShape, EffectMethod>>

let platform: Promise<FileSystemShape> | undefined

/** @effect/platform-node's file system, its modules imported on the first call. */
export const loadNodeFileSystem = (): Promise<FileSystemShape> =>
  (platform ??= import("./node-file-system.ts").then((m) => m.nodeFileSystem))

/**
 * A FileSystem whose implementation (@effect/platform-node's) is imported by its first call: a one-tool call
 * that never touches it (a read answers through node:fs) loads none of it. Its stream, sink and watch
 * cannot be lazy (they return a stream at once, which needs effect's Stream module): a tool that uses
 * them names FileSystem in its `requires` and gets the platform's file system itself.
 */
export const lazyFileSystem = (): FileSystemShape => {
  const load = Effect.promise(loadNodeFileSystem)
  const service: Record<string, unknown> = {}
  for (const name of EFFECT_METHODS) {
    service[name] = (...args: Array<unknown>) =>
      Effect.flatMap(load, (fs) => (fs[name] as (...a: Array<unknown>) => Effect.Effect<unknown, unknown, unknown>)(...args))
  }
  for (const name of STREAM_METHODS) {
    service[name] = () => {
      throw new Error(`FileSystem.${name} is not available to this call: a tool that streams files names FileSystem in its requires`)
    }
  }
  return service as unknown as FileSystemShape
}
