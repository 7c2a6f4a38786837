import { Context } from "effect"

/** Whether fetch may follow a redirect to a host the call was not judged for. */
export type HopVerdict =
  | { readonly follow: true }
  /** A deny rule refuses that host: `reason` names the rule and its file. */
  | { readonly follow: false; readonly denied: string }
  /** The rules would ask about that host: the call stops there, and a call of its own for that URL is asked about. */
  | { readonly follow: false; readonly asks: true }

/**
 * The permission rules as fetch's redirects meet them: the call was approved for its URL's host, and a redirect
 * may lead anywhere (a page on an allowed host sending the request on to `localhost` or a cloud metadata
 * address), so every other host the chain reaches is judged by the same `permission.fetch` rules first.
 */
export class FetchHops extends Context.Service<FetchHops, { readonly judge: (url: string) => HopVerdict }>()("anvil/FetchHops") {}

/** Every redirect followed: the engine used with no permission rules around it (its own tests). */
export const followEveryHop = FetchHops.of({ judge: () => ({ follow: true }) })
