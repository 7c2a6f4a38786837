/**
 * A path setting written from the home folder, as shells and Claude Code's rules write it: `~`, `~/x`, `$HOME/x`
 * or `${HOME}/x` is `<home>/x`. Every setting that names a place (the permission rules' paths, `sandbox.allow`,
 * `writable`, `deny_read`, `allow_read`, `protected`) reads it so, never as a folder named `~` in the project (that
 * one is `./~`). Undefined when `p` is not written so, or there is no home to expand it with.
 */
export const fromHome = (p: string, home: string | undefined): string | undefined => {
  const m = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/.exec(p)
  if (m === null || home === undefined || home === "") return undefined
  const rest = p.slice(m[0].length).replace(/^\/+/, "")
  const base = home.length > 1 ? home.replace(/\/+$/, "") : home
  return rest === "" ? base : `${base === "/" ? "" : base}/${rest}`
}
