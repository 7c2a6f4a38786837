#!/usr/bin/env bash
# Installs what the tests need beyond npm devDependencies: Debian packages for
# tools with no npm package. Runs before `npm test` (the pretest script); quick
# when everything is already there. Each missing package is reported; a test
# that needs one fails with the install command rather than being skipped.
set -u
cd "$(dirname "$0")/.."

# Debian packages the tests use: command → package.
debian_needs=(
  "bwrap:bubblewrap"
  "shellcheck:shellcheck"
  "pylsp:python3-pylsp"
  "tmux:tmux"
)
missing=()
for pair in "${debian_needs[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "test setup: installing ${missing[*]}" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1 ||
      echo "test setup: could not install ${missing[*]}; run: apt-get install ${missing[*]}" >&2
  else
    echo "test setup: missing ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
  fi
fi

# pylsp reports undefined names only through pyflakes, a separate Debian package;
# it must be importable by the Python that runs pylsp (its shebang).
if command -v pylsp >/dev/null 2>&1; then
  pylsp_python=$(head -1 "$(command -v pylsp)" | sed -e 's/^#! *//' -e 's/ .*//')
  if ! "${pylsp_python:-python3}" -c 'import pyflakes' >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pyflakes >/dev/null 2>&1 ||
        echo "test setup: could not install python3-pyflakes; run: apt-get install python3-pyflakes" >&2
    else
      echo "test setup: pylsp lacks pyflakes; run: sudo apt-get install python3-pyflakes" >&2
    fi
  fi
fi

# Test packages with their own package.json (installed without optional binaries).
for dir in test/*/package.json plugins/*/package.json; do
  [ -f "$dir" ] || continue
  pkg=$(dirname "$dir")
  if [ ! -d "$pkg/node_modules" ] || [ "$pkg/package.json" -nt "$pkg/node_modules" ]; then
    (cd "$pkg" && npm install --no-audit --no-fund --omit=optional >/dev/null 2>&1 && touch node_modules) ||
      echo "test setup: npm install failed in $pkg" >&2
  fi
done
exit 0
