#!/usr/bin/env bash
# tcr.sh "message": one step of the agent's loop (Spec-Lock-Diff Rule 5).
# Runs `slp tcr`: check, gate and the unit tests; green commits the change,
# red reverts it; five reds in a row stop the agent (exit 3) until a human
# runs `slp tcr --reset`. This wrapper only finds slp and hands it the words:
# $SLP, else the binary npm installed for this machine (no Node start), else
# node_modules/.bin/slp, else slp on PATH, else a clone of slp's own source.
set -u

if [ $# -eq 0 ] || [ -z "${1:-}" ]; then
  echo 'usage: tcr.sh "commit message" [slp tcr flags]' >&2
  exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -n "${SLP:-}" ]; then
  exec "$SLP" tcr "$@"
fi
for binary in "$here"/node_modules/@spec-lock-diff/cli-*/slp "$here"/node_modules/@spec-lock-diff/cli-*/slp.exe; do
  if [ -x "$binary" ]; then exec "$binary" tcr "$@"; fi
done
if [ -x "$here/node_modules/.bin/slp" ]; then
  exec "$here/node_modules/.bin/slp" tcr "$@"
elif command -v slp >/dev/null 2>&1; then
  exec slp tcr "$@"
elif [ -x "$here/dist/slp" ]; then
  exec "$here/dist/slp" tcr "$@"
elif [ -f "$here/src/cli.ts" ] && command -v bun >/dev/null 2>&1; then
  exec bun "$here/src/cli.ts" tcr "$@"
elif [ -f "$here/src/cli.ts" ] && [ -x "$here/node_modules/.bin/bun" ]; then
  exec "$here/node_modules/.bin/bun" "$here/src/cli.ts" tcr "$@"
fi
echo "tcr.sh: cannot find slp; npm install --save-dev spec-lock-diff, put the slp binary on PATH, or set SLP=/path/to/slp" >&2
exit 2
