import { Effect } from "effect"
import { SpillStore } from "../output/spill-store.ts"
import { Workspace } from "../workspace/workspace.ts"
import type { WebFetchError } from "./web-fetch-error.ts"

/**
 * Bodies a fetch does not return whole are kept in the spill folder (retention
 * applies), so nothing a server sent is lost: each function gives the saved
 * file as results name paths, or undefined when it could not be written.
 */

/** An HTTP error's whole answer, when the error's excerpt shows only its start. */
export const saveErrorBody = (e: WebFetchError): Effect.Effect<string | undefined, never, SpillStore | Workspace> =>
  Effect.gen(function* () {
    if (e._tag !== "FetchHttpStatus" || e.body === undefined) return undefined
    const store = yield* SpillStore
    const ws = yield* Workspace
    const files = yield* store.spill("WebFetch", { status_code: e.status, final_url: e.finalUrl, body: e.body }, e.body).pipe(Effect.orElseSucceed(() => undefined))
    return files?.text !== undefined ? ws.display(files.text) : undefined
  })

const IMAGE_EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp", "image/avif": "avif", "image/bmp": "bmp", "image/x-icon": "ico", "image/tiff": "tiff" }

/** An image too large to return inline, under an extension for its type (`bin` for others). */
export const saveImage = (mediaType: string, bytes: Uint8Array): Effect.Effect<string | undefined, never, SpillStore | Workspace> =>
  Effect.gen(function* () {
    const store = yield* SpillStore
    const ws = yield* Workspace
    return yield* Effect.acquireUseRelease(
      store.openStream("WebFetch", `image.${IMAGE_EXTENSIONS[mediaType] ?? "bin"}`),
      (file) => Effect.as(file.write(bytes), ws.display(file.path)),
      (file) => file.close,
    ).pipe(Effect.orElseSucceed(() => undefined))
  })
