#!/usr/bin/env bash
# Source trees for scripts/gpu.sh's steps `trees` and `tree:NAME` (carry .wt to the GPU machine):
# for each BRANCH, .wt/BRANCH is the branch merged with HEAD (the branch as is where the merge
# conflicts), with its GPU commands in .wt/BRANCH/tree.gpu: $NOTES/BRANCH.gpu without its cmake
# lines (step trees builds). NAME=COMMIT makes .wt/NAME of a plain commit (e.g. old=cd2b244, for
# same-node before/after runs; its tree.gpu: $NOTES/NAME.gpu where there is one).
# usage: NOTES=/path/to/notes scripts/wt-trees.sh BRANCH|NAME=COMMIT...   (.wt is emptied first)
set -euo pipefail
cd "$(dirname "$0")/.."
NOTES=${NOTES:-../wt/notes}
head=$(git rev-parse HEAD)
tmp=""
trap '[ -n "$tmp" ] && { git worktree remove --force "$tmp/t" 2>/dev/null; rm -rf "$tmp"; }; git worktree prune' EXIT
for arg in "$@"; do  # names become folders under .wt: plain names only
  name=${arg%%=*}
  [[ "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] || { echo "wt-trees: bad tree name '$name'" >&2; exit 2; }
done
rm -rf .wt; mkdir -p .wt
for arg in "$@"; do
  name=${arg%%=*}; how=""
  mkdir -p ".wt/$name"
  if [ "$arg" != "$name" ]; then
    git archive "${arg#*=}" | tar -x -C ".wt/$name"; how="commit ${arg#*=}"
  else
    tmp=$(mktemp -d); git worktree add -q --detach "$tmp/t" "$name"
    if (cd "$tmp/t" && git -c user.name=trees -c user.email=trees@localhost merge -q --no-edit "$head" >/dev/null 2>&1); then
      (cd "$tmp/t" && git archive HEAD) | tar -x -C ".wt/$name"; how="merged with HEAD $(git rev-parse --short HEAD)"
    else
      (cd "$tmp/t" && git merge --abort 2>/dev/null || true); git archive "$name" | tar -x -C ".wt/$name"
      how="as is (its merge with HEAD conflicts)"
    fi
    git worktree remove --force "$tmp/t"; rm -rf "$tmp"; tmp=""
  fi
  if [ -f "$NOTES/$name.gpu" ]; then
    { echo "# .wt/$name: $how; commands from $NOTES/$name.gpu"
      grep -v "^\s*#" "$NOTES/$name.gpu" | grep -v "^\s*$" | grep -v "^cmake " || true; } >".wt/$name/tree.gpu"
  fi
  echo "$name: $how"
done
du -sh .wt
