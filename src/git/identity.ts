import { Effect } from "effect"
import { hint } from "../protocol/hint.ts"
import { gitError, type GitError } from "./git-error.ts"

/** Who a commit is by. */
export interface Identity {
  readonly name: string
  readonly email: string
}

const missing = (what: "author" | "committer"): GitError =>
  gitError(
    "failed",
    `${what === "author" ? "Author" : "Committer"} identity unknown: git needs user.name and user.email to commit. ` +
      'Ask the user to set them (git config --global user.name "Your Name"; git config --global user.email "you@example.com"), ' +
      "or set GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL in the environment.",
    { hints: [hint("Bash", "low", { command: 'git config user.name "<name>" && git config user.email "<email>"' })] },
  )

/**
 * The author and committer as git works them out: GIT_AUTHOR_* /
 * GIT_COMMITTER_* from the environment, then user.name / user.email from the
 * config files, then EMAIL. Missing parts are a clear EXECUTION_ERROR.
 */
export const resolveIdentity = (
  config: ReadonlyMap<string, string>,
  env: Readonly<Record<string, string | undefined>>,
): Effect.Effect<{ readonly author: Identity; readonly committer: Identity }, GitError> =>
  Effect.gen(function* () {
    const pick = (...candidates: ReadonlyArray<string | undefined>) => candidates.find((c) => c !== undefined && c.trim() !== "")?.trim()
    const name = config.get("user.name")
    const email = config.get("user.email") ?? env.EMAIL
    const authorName = pick(env.GIT_AUTHOR_NAME, name)
    const authorEmail = pick(env.GIT_AUTHOR_EMAIL, email)
    if (!authorName || !authorEmail) return yield* Effect.fail(missing("author"))
    const committerName = pick(env.GIT_COMMITTER_NAME, name, authorName)
    const committerEmail = pick(env.GIT_COMMITTER_EMAIL, email, authorEmail)
    return { author: { name: authorName, email: authorEmail }, committer: { name: committerName!, email: committerEmail! } }
  })
