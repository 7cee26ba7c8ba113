#!/usr/bin/env bash
# tcr.sh "message": one step of the agent's loop (Spec-Lock-Diff Rule 5).
# Runs `slp tcr`: check, gate and the unit tests; green commits the change,
# red reverts it; five reds in a row stop the agent (exit 3) until a human
# runs `slp tcr --reset`. This wrapper only finds slp and hands it the words.
set -u

if [ $# -eq 0 ] || [ -z "${1:-}" ]; then
  echo 'usage: tcr.sh "commit message" [slp tcr flags]' >&2
  exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -n "${SLP:-}" ]; then
  exec "$SLP" tcr "$@"
elif command -v slp >/dev/null 2>&1; then
  exec slp tcr "$@"
elif [ -x "$here/dist/slp" ]; then
  exec "$here/dist/slp" tcr "$@"
elif [ -x "$here/node_modules/.bin/slp" ]; then
  exec "$here/node_modules/.bin/slp" tcr "$@"
elif [ -f "$here/src/cli.ts" ] && command -v bun >/dev/null 2>&1; then
  exec bun "$here/src/cli.ts" tcr "$@"
elif [ -f "$here/src/cli.ts" ] && [ -x "$here/node_modules/.bin/bun" ]; then
  exec "$here/node_modules/.bin/bun" "$here/src/cli.ts" tcr "$@"
fi
echo "tcr.sh: cannot find slp; put the slp binary on PATH, set SLP=/path/to/slp, or npm install spec-lock-diff" >&2
exit 2
