#!/bin/sh
# Print the files changed since a base branch, then the diff with wide context.
# Usage: collect-diff.sh [BASE]   (default: origin/main)
set -eu

base="${1:-origin/main}"
remote="${base%%/*}"
branch="${base#*/}"

if ! git rev-parse --verify --quiet "$base" >/dev/null; then
    git fetch --quiet "$remote" "$branch"
fi

merge_base="$(git merge-base "$base" HEAD)"

echo "## Changed files"
git diff --stat "$merge_base" HEAD
echo
echo "## Diff"
git diff --unified=10 "$merge_base" HEAD
