#!/usr/bin/env bash
# The accessibility tests inject axe-core (from the npm registry) into the page from a local file.
# Install the pinned version into .cache/axe (ignored by git) when it is missing; quick when present.
# Without npm: install Debian's npm with apt-get when root, else the accessibility tests skip and say why.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
version="4.14.1"
dir="$here/.cache/axe"
js="$dir/node_modules/axe-core/axe.min.js"
if [ -f "$js" ] && grep -q "\"version\": \"$version\"" "$dir/node_modules/axe-core/package.json" 2>/dev/null; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's npm for the accessibility tests (axe-core)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq npm >&2
  else
    echo "==> npm is not installed and we are not root: the accessibility tests will be skipped" >&2
    exit 0
  fi
fi
echo "==> installing axe-core $version into $dir for the accessibility tests" >&2
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"name": "landsend-test-tools", "private": true}' > "$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "axe-core@$version" >&2
