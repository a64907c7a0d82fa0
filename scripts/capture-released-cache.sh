#!/usr/bin/env bash
# Captures tests/unit/src/db/migrations/cache-v<version>.json from the released code of that schema
# version: exports <commit> to a temporary directory, runs capture-cache.ts there under its own Vitest,
# and writes what that code left in its IndexedDB. Usage: capture-released-cache.sh <version> <commit>
set -euo pipefail
version="$1"
commit="$2"
repo="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$repo/tests/unit/src/db/migrations"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git -C "$repo" archive "$commit" | tar -x -C "$work"
ln -s "$repo/node_modules" "$work/node_modules"
mkdir -p "$work/tests/unit/src/db/migrations"
cp "$fixtures/cache-v1.json" "$work/tests/unit/src/db/migrations/cache-v1.json"
cp "$fixtures/capture-cache.ts" "$work/tests/unit/src/db/migrations/capture-cache.test.ts"
(cd "$work" && CAPTURE_VERSION="$version" CAPTURE_OUT="$fixtures/cache-v$version.json" \
  npx vitest run tests/unit/src/db/migrations/capture-cache.test.ts)
npx --prefix "$repo" prettier --write "$fixtures/cache-v$version.json" >/dev/null
echo "wrote $fixtures/cache-v$version.json from $commit"
