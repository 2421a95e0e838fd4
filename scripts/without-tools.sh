#!/usr/bin/env bash
# Runs a command with the named programs off the PATH: each PATH folder that holds one is
# replaced by a folder of links to everything else in it. `.ci/run` runs the fast lane this
# way, to prove it needs neither Chromium nor redis-server.
#   scripts/without-tools.sh chromium,redis-server -- npm run test:unit
set -euo pipefail
IFS=, read -r -a hidden <<< "$1"
shift
[ "${1:-}" = "--" ] && shift
farm=$(mktemp -d)
trap 'rm -rf "$farm"' EXIT
path=""
i=0
IFS=: read -r -a dirs <<< "$PATH"
for dir in "${dirs[@]}"; do
  holds=false
  for name in "${hidden[@]}"; do [ -e "$dir/$name" ] && holds=true; done
  if $holds; then
    i=$((i + 1))
    mkdir "$farm/$i"
    for file in "$dir"/*; do
      skip=false
      for name in "${hidden[@]}"; do [ "$(basename "$file")" = "$name" ] && skip=true; done
      $skip || ln -s "$file" "$farm/$i/"
    done
    dir="$farm/$i"
  fi
  path="${path:+$path:}$dir"
done
for name in "${hidden[@]}"; do
  if PATH="$path" command -v "$name" >/dev/null; then echo "without-tools: $name is still on the PATH" >&2; exit 2; fi
done
PATH="$path" "$@"
