import { Effect } from "effect"
import { FileSystem } from "effect/FileSystem"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"

/** @effect/platform-node's file system as a value (imported lazily, see file-system.ts). */
export const nodeFileSystem: FileSystem = Effect.runSync(Effect.provide(Effect.service(FileSystem), NodeFileSystem.layer))
