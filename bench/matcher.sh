#!/usr/bin/env bash
# The prefilter's combined matcher against the Aho–Corasick packages on npm (issue 28 asks for both to
# be measured): the packages are installed into a temp folder, never into the project.
# Usage: bash bench/matcher.sh [text file]   (default: 20 MB of code-like lines, bench/lib/make-code-repo.mjs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kvgate-matcher.XXXXXX")
trap 'rm -rf "$work"' EXIT
text=${1:-}
if [ -z "$text" ]; then
  text="$work/code.txt"
  node "$here/lib/make-code-repo.mjs" --file "$text" 20
fi
npm install --silent --no-audit --no-fund --prefix "$work/ac" ahocorasick@1.0.2 @monyone/aho-corasick@1.1.11 modern-ahocorasick@3.3.0 >/dev/null 2>&1 || echo "the packages could not be installed: regex rows only" >&2
node "$here/lib/matcher.mjs" "$text" "$work/ac/node_modules"
