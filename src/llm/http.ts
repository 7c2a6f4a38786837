import { Context, Layer } from "effect"

/**
 * How the model providers reach the network: a fetch function, injected so
 * tests and the bench can count or redirect requests. (The fetch tool has its
 * own HTTP service with its own limits; a model request needs none of them —
 * just a streamed body and an abort signal — so this stays a one-liner.)
 */
export interface ModelHttpShape {
  readonly fetch: (url: string, init: RequestInit) => Promise<Response>
}

export class ModelHttp extends Context.Service<ModelHttp, ModelHttpShape>()("anvil/ModelHttp") {
  /** Bun's own fetch. */
  static layer = Layer.succeed(ModelHttp, { fetch: (url, init) => fetch(url, init) })
}
