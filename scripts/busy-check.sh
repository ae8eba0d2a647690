#!/usr/bin/env bash
# The timing-sensitive tests on a loaded machine: two CPU-burning processes (`yes`) run beside
# them for the whole run. A test that reads a screen or a log at a moment instead of waiting for
# it, or whose deadline is too tight for two busy cores, fails here first. Exits non-zero if any
# test fails.
#
#   scripts/busy-check.sh             the e2e project and the integration files that time things
#   scripts/busy-check.sh <files…>    just these test files
set -euo pipefail
cd "$(dirname "$0")/.."

# Integration tests whose subject is timing: retries and reconnects, deadlines, gathering windows,
# ordering under a slow peer, properties that start shells.
TIMING_SENSITIVE=(
  apps/host/test/overview.test.ts
  apps/host/test/tool-input-fuzz.test.ts
  apps/host/test/run-shell.test.ts
  apps/host/test/task-runner.test.ts
  apps/host/test/router-link.test.ts
  apps/router/test/transport.test.ts
  apps/router/test/console-overview.test.ts
  apps/router/test/feishu.test.ts
  apps/router/test/pairing.test.ts
  apps/router/test/answer-order.test.ts
  apps/router/test/backpressure.test.ts
  apps/router/test/telegram-router.test.ts
  apps/standalone/test/shell-command.test.ts
)

burners=()
stop_burners() {
  if ((${#burners[@]})); then kill "${burners[@]}" 2>/dev/null || true; fi
}
trap stop_burners EXIT
for _ in 1 2; do
  yes >/dev/null &
  burners+=("$!")
done
echo "busy-check: two busy processes (pids ${burners[*]}) beside the tests"

started=$SECONDS
if (($#)); then
  npx vitest run "$@"
else
  npx vitest run --project e2e --project integration apps/*/test/*.e2e.test.ts packages/*/test/*.e2e.test.ts "${TIMING_SENSITIVE[@]}"
fi
echo "busy-check: passed in $((SECONDS - started)) s"
