import { inside, real } from "./protected-paths.ts"
import { secretPlaces } from "./secret-places.ts"
import type { Withheld } from "../workspace/workspace.ts"

/**
 * What the file tools keep out of in the folders outside the project they may reach (`sandbox.allow`, `--add-dir`):
 * the secrets the command sandbox hides from commands (secret-places.ts), so that `"allow": ["~"]` gives the file
 * tools what it gives a command (the home folder) and no more (not `~/.ssh`, not anvil's own settings and trust).
 * A place holding the project or one of `keep` (anvil's spill folders) is left out, as the sandbox never hides
 * the project. Each with the setting that gives it back, for the refusal's next step.
 */
export const withheldFromTools = (
  lists: { readonly allowRead: ReadonlyArray<string>; readonly denyRead: ReadonlyArray<string> },
  root: string,
  keep: ReadonlyArray<string>,
  home: string | undefined,
  configHome: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ReadonlyArray<Withheld> =>
  secretPlaces(lists, root, home, configHome, env).flatMap((place) => {
    const at = real(place.path) ?? place.path
    if ([root, ...keep].some((k) => inside(k, at) || inside(k, place.path))) return []
    const shown = place.entry.replace(/\/$/, "")
    const nextStep = place.denied
      ? `It is listed in sandbox.deny_read; to let commands and the file tools read it, take it out of that list.`
      : `To let commands and the file tools read it, add "${place.entry}" to sandbox.allow_read in your own ~/.config/anvil/anvil.json (a project's list applies only once trusted).`
    const why = place.denied ? `${shown}, which sandbox.deny_read keeps from commands` : `${shown}, a secret the command sandbox hides from commands`
    return [...new Set([place.path, at])].map((path) => ({ path, why, nextStep }))
  })
