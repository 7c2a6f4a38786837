import { hideablePlaces, type TrackedStandIn } from "./hideable-places.ts"
import { inside, real } from "./protected-paths.ts"
import { MAX_MASK_ENTRIES, type ReadMasks, type RuleMask } from "./settings.ts"

/**
 * The most mounts the `read` rules add per command (each place, and each tracked path made again inside a hidden
 * folder): bubblewrap's start grows faster than their number (measured through the binary: 90 places add about
 * 20 ms, 210 about 130 ms, 510 about 500 ms, 1,000 about 2 s).
 */
export const MAX_RULE_MASKS = 200

/** Why no confined command runs under the `read` rules, and what the user can do about it. */
export interface MasksRefusal {
  readonly message: string
  readonly nextStep: string
}

const NOT_RUN = "The command was not run: "
const ALLOW_READ = "or give places back to commands with sandbox.allow_read in anvil.json. `anvil sandbox` lists what the rules hide."

/** The rules match more places than one command's sandbox hides. */
export const tooManyMasks: MasksRefusal = {
  message:
    `${NOT_RUN}the read deny and ask rules in "permission" match more places than the sandbox hides for one command ` +
    `(at most ${MAX_RULE_MASKS}, tracked files in a hidden folder included, found by a walk of the project that stops after ` +
    `${MAX_MASK_ENTRIES.toLocaleString("en-US")} entries), and running it with only some of them hidden would let it read the rest ` +
    `(a command can make decoy files to push a secret past the limit).`,
  nextStep:
    `Remove the files a command made that match the rules, or narrow the rules so they match fewer places (anchor a pattern to its folder: "./keys/*.pem" rather than "*.pem"), ${ALLOW_READ}`,
}

/** `read`'s own level refuses every file: no set of places hides them all. */
const everythingRefused = (rule: string): MasksRefusal => ({
  message: `${NOT_RUN}the rule ${rule} keeps read from every file, and a command could read any of them (the sandbox hides only the places rules name).`,
  nextStep: `Name the places to keep from commands instead ("read": {"secrets/**": "deny"}), or run this one command with sandbox: false (the user is asked and must agree).`,
})

/** `read` asks about every file, and this command was approved by no one (the agent's verify command, a hook). */
const unaskedRefused = (rule: string): MasksRefusal => ({
  message:
    `${NOT_RUN}the rule ${rule} asks before any file is read, and a command could read any of them (the sandbox hides only the places rules name); ` +
    `a bash call is asked about before it runs, but this command (the verify command or a plugin's hook) has no one to ask.`,
  nextStep: `Name the places to ask about instead ("read": {"secrets/**": "ask"}), or run the command through bash, which asks.`,
})

/** An absolute pattern outside the project whose places cannot all be found (it starts at `/`, or its walk stopped). */
const unwalkableRefused = (rule: string): MasksRefusal => ({
  message:
    `${NOT_RUN}the rule ${rule} names places outside the project that cannot all be found: a pattern is looked for from the folder ` +
    `before its first wildcard, and this one starts at / or its folder holds over ${MAX_MASK_ENTRIES.toLocaleString("en-US")} entries; running it with only some hidden would let it read the rest.`,
  nextStep: `Start the pattern at the folder that holds what it means ("/srv/keys/*.pem" rather than "/**/*.pem"), or name the folder itself ("/srv/keys/"), ${ALLOW_READ}`,
})

/** A folder to hide holds tracked files the index cannot tell (hidden whole, git would see them deleted). */
const indexUnreadable = (rule: string): MasksRefusal => ({
  message:
    `${NOT_RUN}the rule ${rule} hides a folder, and git's index could not be read for the files it tracks there (a split index, ` +
    `or one over 64 MiB): hidden whole, they would look deleted to a command's git add -A.`,
  nextStep: `Turn the split index off (git update-index --no-split-index), or narrow the rule to the files it means, ${ALLOW_READ}`,
})

/** What the `read` rules add to one command's mounts. */
export interface RuleMaskMounts {
  /** The places hidden, with the rule for each (real paths). */
  readonly ruleMasks: ReadonlyArray<RuleMask>
  readonly places: ReadonlyArray<{ readonly path: string; readonly dir: boolean }>
  /** Tracked paths inside the hidden folders, made again inside them; `under` is the folder. */
  readonly tracked: ReadonlyArray<TrackedStandIn & { readonly under: string }>
  readonly refused?: MasksRefusal
}

/**
 * What the `read` deny and ask rules name, inside the project or not, where git does not need it (see
 * hideablePlaces), less what sandbox.allow_read gives commands back (`givenBack`, real: a folder with what it holds).
 * A place holding the project or the session's folder is never hidden. Where `read` asks about every file, only a
 * command approved through the permission flow (`facts.approved`: a bash call) runs, with the deny rules' places hidden.
 */
export const ruleMaskMounts = (
  readMasks: ReadMasks | undefined,
  givenBack: ReadonlyArray<string>,
  facts: { readonly root: string; readonly sessionTmp: string; readonly env?: Readonly<Record<string, string | undefined>>; readonly approved?: boolean },
  /** Where the walk may keep what it found for the next anvil process (see ReadMasks). */
  keepIn?: string,
): RuleMaskMounts => {
  const masks = readMasks?.(keepIn)
  if (masks?.everything !== undefined) return { ruleMasks: [], places: [], tracked: [], refused: everythingRefused(masks.everything) }
  if (masks?.asked !== undefined && facts.approved !== true) return { ruleMasks: [], places: [], tracked: [], refused: unaskedRefused(masks.asked) }
  if (masks?.unwalkable !== undefined) return { ruleMasks: [], places: [], tracked: [], refused: unwalkableRefused(masks.unwalkable) }
  const ruleOf = new Map<string, RuleMask>()
  for (const m of masks?.places ?? []) if (!ruleOf.has(m.path)) ruleOf.set(m.path, m)
  const back = givenBack.map((a) => real(a) ?? a)
  const ruleMasks: Array<RuleMask> = []
  const places: Array<{ readonly path: string; readonly dir: boolean }> = []
  const tracked: Array<TrackedStandIn & { readonly under: string }> = []
  let refused = masks?.stopped === true ? tooManyMasks : undefined
  for (const { path: p, given, dir, tracked: inIt } of hideablePlaces(facts.root, [...ruleOf.keys()], facts.env)) {
    if (refused) break
    if (back.some((a) => inside(p, a)) || inside(facts.root, p) || inside(facts.sessionTmp, p)) continue
    const { rule, level } = ruleOf.get(given)!
    if (inIt === undefined) refused = indexUnreadable(rule)
    // Each mount is one the command's start waits for: a rule matching thousands (`*.json`) is cut short.
    else if (ruleMasks.length + tracked.length + 1 + inIt.length > MAX_RULE_MASKS) refused = tooManyMasks
    else {
      ruleMasks.push({ path: p, rule, ...(level !== undefined ? { level } : {}) })
      places.push({ path: p, dir })
      for (const t of inIt) tracked.push({ ...t, under: p })
    }
  }
  return { ruleMasks, places, tracked, ...(refused ? { refused } : {}) }
}
