/** How often the init looks again whether something in the background still holds the output. */
export const DRAIN_POLL_MS = 25

/**
 * The first process of a confined command's PID namespace (bubblewrap `--as-pid-1`), a POSIX shell script run as
 * `sh -c DRAIN_INIT anvil-drain POLLS MARKER COMMAND…`. Without it bubblewrap's own init ends the namespace, and
 * with it every process the command left in the background, the moment the command exits: `(sleep 0.2; echo late) &
 * echo early` lost "late" without a word, where the unconfined runner waits `drain_ms` for the output to be let go
 * (process-runner.ts). This init does the same inside: once the command exited, it looks whether another process of
 * the namespace still has the command's stdout or stderr open (orphans are its children now, and a zombie holds
 * nothing), every DRAIN_POLL_MS up to POLLS times; still held then, it makes the file MARKER (the runner's
 * `heldOpen`: the answer says background output was cut) and exits, which ends them all. It exits with the
 * command's status. Its own stderr goes to /dev/null (fd 3 keeps the command's, put back by a shell that then
 * becomes the command): a shell reports a child killed by a signal ("Killed") on its stderr, and a redirection of the
 * command itself would be in force in the init while it waits; the command's output must not gain that line.
 */
export const DRAIN_INIT = [
  "n=$1; m=$2; shift 2",
  `exec 3>&2 2>/dev/null; /bin/sh -c 'exec 2>&3 3>&-; exec "$@"' anvil-command "$@"; s=$?`,
  "held() { for f in /proc/[0-9]*/fd/*; do case $f in /proc/1/*) continue ;; esac; if [ \"$f\" -ef /proc/1/fd/1 ] || [ \"$f\" -ef /proc/1/fd/3 ]; then return 0; fi; done; return 1; }",
  "i=0",
  `while held; do if [ "$i" -ge "$n" ]; then : > "$m"; exit "$s"; fi; sleep ${DRAIN_POLL_MS / 1000}; i=$((i + 1)); done`,
  'exit "$s"',
].join("\n")
