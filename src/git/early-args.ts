import { COUNT_ARGS, DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, diffArgs, logArgs, statusArgs } from "./git-command.ts"
import { detectsCopies, detectsRenames, untrackedMode } from "./repository-config.ts"
import { isRecord } from "../protocol/is-record.ts"

/** Whether `params` has no other keys than `keys`. */
const onlyKeys = (params: Record<string, unknown>, keys: ReadonlyArray<string>) => Object.keys(params).every((k) => keys.includes(k))

const maybeBoolean = (v: unknown) => v === undefined || typeof v === "boolean"

/**
 * The arguments of the git commands `anvil tool NAME [JSON]` will run, for the plain forms of the read-only
 * git tools; none for any other command line (flags, aliases, a path to resolve, parameters the tool will
 * refuse). `settings` (the git config in force) is asked for only by the commands whose arguments depend on
 * it: git_status's and the staged diff's. A wrong guess costs a git process, never an answer: the service
 * compares before it adopts.
 */
export const plannedArgs = (argv: ReadonlyArray<string>, settings: () => ReadonlyMap<string, string>): ReadonlyArray<ReadonlyArray<string>> => {
  if (argv[0] !== "tool" || argv.length > 3) return []
  const params: unknown = argv[2] === undefined ? {} : JSON.parse(argv[2])
  if (!isRecord(params)) return []
  switch (argv[1]) {
    case "git_status":
      return onlyKeys(params, ["short"]) && maybeBoolean(params.short) ? [statusArgs(untrackedMode(settings()))] : []
    case "git_diff": {
      if (!onlyKeys(params, ["staged"]) || !maybeBoolean(params.staged)) return []
      const staged = params.staged === true
      // The unstaged diff never looks for renames, whatever the settings.
      return [diffArgs({ staged, prefixes: [], renames: staged && detectsRenames(settings(), "diff"), copies: staged && detectsCopies(settings(), "diff") })]
    }
    case "git_log": {
      const limit = params.limit ?? DEFAULT_LOG_LIMIT
      if (!onlyKeys(params, ["limit", "oneline"]) || !maybeBoolean(params.oneline) || !Number.isInteger(limit)) return []
      if ((limit as number) < 1 || (limit as number) > MAX_LOG_LIMIT) return []
      // The count is wanted when the history is longer than the limit, as most are.
      return [logArgs(limit as number), COUNT_ARGS]
    }
    default:
      return []
  }
}
