import { join } from "node:path"
import type { Repository } from "./repository.ts"

/**
 * The commits a shallow clone's history stops at (`git clone --depth`, `git fetch --depth`): git lists them in the
 * common git folder's `shallow` file and shows them without parents, so a log there ends early though the project
 * is older. Empty for a full clone.
 */
export const shallowBoundary = (repo: Repository): ReadonlyArray<string> =>
  (repo.readGitFile(join(repo.commondir, "shallow"))?.toString("latin1") ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(line))
