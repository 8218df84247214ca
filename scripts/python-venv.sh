#!/usr/bin/env bash
# A project-local Python virtual environment holding a pinned requirements file, made once:
#   scripts/python-venv.sh .build/contract-venv Tests/Contract/requirements.txt
# It is made again when the requirements change (a copy of the file it was made from is kept
# beside it). `make test` makes both of its environments at the start, beside the build: pip
# mostly waits on the network, and the checks that need them then start at once.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$1
requirements=$2
if cmp -s "$requirements" "$venv/made-from.txt" 2>/dev/null; then
  exit 0
fi
echo "== installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$venv/made-from.txt"
