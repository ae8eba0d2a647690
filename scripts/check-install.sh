#!/usr/bin/env bash
# Packs `phonework` once, then runs the installed suite (`pnpm test:installed`, apps/cli/test-installed)
# against it under each Node major given: its global setup installs the tarball the way a user does
# (npm install -g into an empty prefix, npm and phonework on that Node), checks the install (no dev
# packages, only the `phonework` bin, --version, nothing compiled on Linux x64, at most 120 MB;
# it prints the install's time and size), and every scenario runs the installed `phonework`.
#   scripts/check-install.sh [MAJOR...]      e.g. scripts/check-install.sh 22 24
# With no MAJOR, only the machine's node. A major other than the machine's comes from the npm
# registry's node-<os>-<arch> package (bin/node and its headers, nothing else). Vitest itself runs
# on the machine's node; one Node at a time, as each run uses the cores and a browser.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

machine_major="$(node -p 'process.versions.node.split(".")[0]')"
majors=("$@")
[[ ${#majors[@]} -gt 0 ]] || majors=("$machine_major")
node_package="node-$(node -p 'process.platform')-$(node -p 'process.arch')"

work="$(mktemp -d "${TMPDIR:-/tmp}/phonework-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

started=$SECONDS
tarball="$(pnpm -s package "$work/pack" | tail -n 1)"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) kB) in $((SECONDS - started)) s"

# The node binary of a major: the machine's, or one from the registry (in $work/node<major>).
node_of() {
  local major="$1"
  if [[ "$major" == "$machine_major" ]]; then
    readlink -f "$(command -v node)"
    return
  fi
  npm install --prefix "$work/node$major" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "$node_package@$major" >"$work/node$major.log" 2>&1 || { cat "$work/node$major.log" >&2; return 1; }
  echo "$work/node$major/node_modules/$node_package/bin/node"
}

failed=()
for major in "${majors[@]}"; do
  node_bin="$(node_of "$major")" || { failed+=("$major (no $node_package@$major)"); continue; }
  [[ "$("$node_bin" -p 'process.versions.node')" == "$major".* ]] || { failed+=("$major (wrong node)"); continue; }
  echo "── installed suite on node $("$node_bin" --version)"
  suite_started=$SECONDS
  if PHONEWORK_NODE="$node_bin" PHONEWORK_TARBALL="$tarball" pnpm -s test:installed; then
    echo "✅ node $major: installed suite passed in $((SECONDS - suite_started)) s"
  else
    failed+=("$major")
  fi
done
echo "install check: ${#majors[@]} node version(s) in $((SECONDS - started)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "❌ failed on node ${failed[*]}" >&2
  exit 1
fi
