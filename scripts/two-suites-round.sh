#!/usr/bin/env bash
# One "two suites at once" round (docs/contributing.md): clone this repository's HEAD twice into
# OUT, `npm ci` in each, then start `npm test` in both in the same second and report each suite's
# passed/failed/skipped counts, its time (vitest's JSON report: its start to the last test's end)
# and every failure. Not part of `npm test`; install redis-server and chromium first, or their
# tests are skipped and the round proves less.
#   scripts/two-suites-round.sh [OUT]     (default: a new directory under /tmp)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$(mktemp -d /tmp/two-suites-XXXXXX)}"
mkdir -p "$out"
command -v redis-server >/dev/null || echo "warning: redis-server missing: the Redis tests will be skipped" >&2
command -v chromium >/dev/null || echo "warning: chromium missing: the status page test will be skipped" >&2
echo "round on $(git -C "$repo" rev-parse --short HEAD)" > "$out/info"
for s in A B; do
  rm -rf "${out:?}/$s"
  git clone -q "$repo" "$out/$s"
  (cd "$out/$s" && npm ci --no-audit --no-fund > "$out/$s.ci.log" 2>&1)
done
echo "start $(date -u +%T) UTC" >> "$out/info"
for s in A B; do
  (cd "$out/$s" && npm test -- --reporter=default --reporter=json --outputFile="$out/$s.json" > "$out/$s.log" 2>&1 || true) &
done
wait
echo "end $(date -u +%T) UTC" >> "$out/info"
for s in A B; do
  node -e '
const r = require(process.argv[1]);
const ms = Math.max(...r.testResults.map((f) => f.endTime)) - r.startTime;
console.log(`${process.argv[2]}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped, ${(ms / 1000).toFixed(0)} s`);
for (const f of r.testResults)
  for (const a of f.assertionResults.filter((t) => t.status === "failed"))
    console.log(`  ${f.name.replace(/.*\/test\//, "test/")} > ${a.fullName}\n    ${(a.failureMessages[0] ?? "").split("\n").slice(0, 3).join("\n    ")}`);
' "$out/$s.json" "$s" >> "$out/info" 2>&1 || echo "$s: no JSON report (see $out/$s.log)" >> "$out/info"
done
cat "$out/info"
