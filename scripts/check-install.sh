#!/usr/bin/env bash
# Installs the packed `phonework` the way a user does (npm install -g of the tarball, into a fresh
# prefix) under each Node major given, and checks that the install runs.
#   scripts/check-install.sh [MAJOR...]      e.g. scripts/check-install.sh 20 22 24
# With no MAJOR, only the machine's node. A major other than the machine's comes from the npm
# registry's node-<os>-<arch> package: bin/node plus include/node, the headers node-gyp builds
# better-sqlite3 against, so nothing else is downloaded. The installs run in parallel: each is
# mostly one compile of better-sqlite3, and one at a time they take about twice as long on 2 cores.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

# The coding CLIs are the user's own and the rest are dev tools: none of them may come along.
FORBIDDEN=(@anthropic-ai/claude-code @openai/codex tsx vitest typescript)

machine_major="$(node -p 'process.versions.node.split(".")[0]')"
majors=("$@")
[[ ${#majors[@]} -gt 0 ]] || majors=("$machine_major")
node_package="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
npm_cli="$(readlink -f "$(command -v npm)")"
[[ "$npm_cli" == *npm-cli.js ]] || { echo "can't find npm-cli.js behind $(command -v npm)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/phonework-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT

started=$SECONDS
tarball="$(cd "$root" && pnpm -s package "$work/pack" | tail -n 1)"
version="$(tar -xzOf "$tarball" package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) kB) in $((SECONDS - started)) s"

fail() {
  echo "❌ node $1: $2" >&2
  exit 1
}

# One install and its checks, in $work/node<major>; prints one line when all pass.
check_one() {
  local major="$1" dir="$work/node$1" node_bin node_dir
  mkdir -p "$dir/home" "$dir/projects"
  local started=$SECONDS
  if [[ "$major" == "$machine_major" ]]; then
    node_bin="$(readlink -f "$(command -v node)")"
  else
    npm install --prefix "$dir/runtime" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "$node_package@$major" >"$dir/runtime.log" 2>&1 || { cat "$dir/runtime.log" >&2; fail "$major" "no $node_package@$major"; }
    node_bin="$dir/runtime/node_modules/$node_package/bin/node"
  fi
  node_dir="$(dirname "$(dirname "$node_bin")")"
  local node_version
  node_version="$("$node_bin" -p 'process.versions.node')"
  [[ "$node_version" == "$major".* ]] || fail "$major" "$node_bin is node $node_version"

  # npm and everything it starts (node-gyp, the install scripts) and then phonework itself run on
  # this node: its directory first on PATH. node-gyp takes the headers from npm_config_nodedir when
  # the node has them beside it (the machine's /usr/include/node, the package's include/node).
  local path
  path="$(dirname "$node_bin"):$PATH"
  local -a nodedir=()
  [[ -f "$node_dir/include/node/node.h" ]] && nodedir=(npm_config_nodedir="$node_dir")
  local install_started=$SECONDS
  env PATH="$path" "${nodedir[@]}" "$node_bin" "$npm_cli" install --global --prefix "$dir/prefix" \
    --no-audit --no-fund --foreground-scripts "$tarball" >"$dir/install.log" 2>&1 \
    || { tail -n 40 "$dir/install.log" >&2; fail "$major" "npm install -g failed"; }
  local install_s=$((SECONDS - install_started))

  # phonework runs with nothing of this shell's environment but PATH: no keys or config leak in.
  local -a clean_env=(env -i PATH="$dir/prefix/bin:$path" HOME="$dir/home" TMPDIR="${TMPDIR:-/tmp}")
  local printed
  printed="$("${clean_env[@]}" phonework --version)" || fail "$major" "phonework --version failed"
  [[ "$printed" == "$version" ]] || fail "$major" "phonework --version printed '$printed', expected '$version'"

  local code=0
  printf '/nodes\n' | "${clean_env[@]}" timeout 60 phonework standalone --data-dir "$dir/data" \
    --working-dir "$dir/projects" --node-id install-check >"$dir/standalone.out" 2>"$dir/standalone.err" || code=$?
  if [[ $code -ne 0 ]] || ! grep -Eq 'install-check +\[ACTIVE\].* online' "$dir/standalone.out"; then
    cat "$dir/standalone.out" "$dir/standalone.err" >&2
    fail "$major" "piped standalone exited $code; expected the local node online and [ACTIVE] on stdout"
  fi

  local name found
  for name in "${FORBIDDEN[@]}"; do
    found="$(find "$dir/prefix" -path "*/node_modules/$name" -print -quit)"
    [[ -z "$found" ]] || fail "$major" "the install contains $name (${found#"$dir/prefix/"})"
  done
  local bins
  bins="$(ls "$dir/prefix/bin")"
  [[ "$bins" == phonework ]] || fail "$major" "the install added executables besides phonework: ${bins//$'\n'/ }"

  echo "✅ node $node_version: npm install -g took ${install_s} s, installed size $(du -sm "$dir/prefix" | cut -f1) MB," \
    "--version $printed, standalone answered /nodes ($((SECONDS - started)) s in all)"
}

pids=()
for major in "${majors[@]}"; do
  check_one "$major" >"$work/node$major.report" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!majors[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "$work/node${majors[$i]}.report"
done
echo "install check: ${#majors[@]} node version(s) in $((SECONDS - started)) s"
exit "$failed"
