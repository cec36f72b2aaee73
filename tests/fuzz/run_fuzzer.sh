#!/usr/bin/env bash
# Runs one libFuzzer target for a while on its seed corpus and prints what it did.
# Usage: run_fuzzer.sh TARGET SECONDS WORK_DIR SEED_DIR DICT
#   WORK_DIR keeps the inputs the run found (reused by the next run) and any crash reproducer
#   (WORK_DIR/artifacts/); SEED_DIR, the corpus in the tree, is only read.
# Exits non-zero when the target crashed, leaked, timed out or broke a check; the reproducer's
# path is in libFuzzer's output ("Test unit written to ...").
set -euo pipefail
target=$1 seconds=$2 work=$3 seeds=$4 dict=$5
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/last-run.log"
status=0
start=$SECONDS
"$target" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
  -dict="$dict" -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$log" 2>&1 || status=$?
name=$(basename "$target")
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1, features \2, corpus \3/p' <<<"$last")
echo "$name: ${runs:-?} executions in $((SECONDS - start)) s; ${cov:-no coverage line}; exit $status"
if [ "$status" -ne 0 ]; then
  grep -E 'ERROR:|runtime error|SUMMARY|Test unit written|==[0-9]+==' "$log" | head -40 || true
  echo "full log: $log"
fi
exit "$status"
