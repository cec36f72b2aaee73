#!/usr/bin/env bash
# Golden bake outputs: bakes the three real samples into every format, at zooms 16-18, with 1 and
# 2 threads, streamed and sharded, and compares the hash of every output with the hashes recorded
# in bake_hashes.txt. A change that alters output on purpose re-records them (--record) in the same
# commit and says why in its message; any other change must keep them.
#
# Usage: bake_golden.sh CLI DATA_DIR SAMPLE_MAP WORK_DIR (--check|--record) HASHES [CASE_FILTER]
#   CLI         the terrabit-cli executable
#   DATA_DIR    tests/data (monaco-region and Krems)
#   SAMPLE_MAP  the bundled Monaco PBF (resources/maps)
#   WORK_DIR    scratch folder (emptied first, removed on success)
#   HASHES      the recorded hashes; --record writes them from this run
#   CASE_FILTER optional grep pattern on case names (to re-run some cases by hand)
#
# One line per output: CASE OUTPUT SHA256. A folder output (3dtiles, layers, the osgb groups in
# scene) is hashed as the sha256 of its sorted `sha256sum` listing. Every variant of a case
# (threads, streaming, shards) must give the same line as the case's reference bake, for every
# output it writes.
#
# The bakes are independent: GOLDEN_JOBS of them (default 2) run at once, so a one-thread bake
# and the single-threaded parts of the others (reading the map, writing the files) leave no core
# idle. Their lines and logs are gathered in the order of the cases below whatever order they end in.
set -euo pipefail

if [ $# -lt 6 ]; then
  sed -n '2,15p' "$0" >&2
  exit 2
fi
cli=$1 data=$2 sample=$3 work=$4 mode=$5 hashes=$6 filter=${7:-}
case "$mode" in --check | --record) ;; *) echo "bake_golden: mode must be --check or --record" >&2; exit 2 ;; esac

monaco=$sample
region=$data/monaco-region-2016-03-05.osm.pbf
krems=$data/krems-an-der-donau.osm
for f in "$cli" "$monaco" "$region" "$krems"; do
  [ -e "$f" ] || { echo "bake_golden: missing $f" >&2; exit 2; }
done

jobs=${GOLDEN_JOBS:-2}
rm -rf "$work"
mkdir -p "$work/lines"
actual=$work/actual.txt
log=$work/bakes.log  # the bakes' summaries, kept when a check fails
: >"$actual"
: >"$log"
bakes=0   # bakes started; each writes $work/lines/<n>.txt and .log
running=0 # bakes not yet waited for
failed=0  # bakes that failed

# in_background FUNCTION ARGS...: runs a bake function as bake number $bakes, its lines to
# $work/lines/<n>.txt and its summaries to <n>.log, once fewer than $jobs bakes are running.
in_background() {
  local n
  n=$(printf '%03d' "$bakes")
  bakes=$((bakes + 1))
  while [ "$running" -ge "$jobs" ]; do
    wait -n || failed=$((failed + 1))
    running=$((running - 1))
  done
  ("$@" >"$work/lines/$n.txt" 2>"$work/lines/$n.log") &
  running=$((running + 1))
}

# hash_outputs CASE DIR: one line per output the bake wrote.
hash_outputs() {
  local name=$1 dir=$2 entry
  for entry in manifest.json scene.glb scene.osgb scene collision.tbcg 3dtiles layers; do
    if [ -f "$dir/$entry" ]; then
      echo "$name $entry $(sha256sum <"$dir/$entry" | cut -d' ' -f1)"
    elif [ -d "$dir/$entry" ]; then
      echo "$name $entry/ $(cd "$dir/$entry" && find . -type f -print0 | LC_ALL=C sort -z |
        xargs -0 sha256sum | sha256sum | cut -d' ' -f1)"
    fi
  done
}

# bake_case CASE VARIANT MAP ARGS...: bakes into its own folder and prints its lines.
bake_case() {
  local name=$1 variant=$2 map=$3
  shift 3
  local out=$work/$name.$variant
  "$cli" -q bake "$map" --seed 2022 --out "$out" "$@" >&2
  hash_outputs "$name" "$out" | sed "s/\$/ $variant/"
  rm -rf "$out"
}

# bake_sharded CASE MAP SHARDS ARGS...: bakes each shard, merges them, prints the merged lines.
bake_sharded() {
  local name=$1 map=$2 shards=$3
  shift 3
  local parts=() k
  for ((k = 0; k < shards; k++)); do
    "$cli" -q bake "$map" --seed 2022 --out "$work/$name.shard$k" --shard "$k/$shards" "$@" >&2
    parts+=("$work/$name.shard$k")
  done
  "$cli" -q merge "${parts[@]}" --out "$work/$name.merged" >&2
  hash_outputs "$name" "$work/$name.merged" | sed "s/\$/ sharded$shards/"
  rm -rf "${parts[@]}" "$work/$name.merged"
}

# run_case CASE VARIANT MAP ARGS... and run_sharded CASE MAP SHARDS ARGS...: the bakes above,
# started in the background unless the case filter leaves them out.
run_case() {
  if [ -n "$filter" ] && ! grep -q -- "$filter" <<<"$1"; then return; fi
  in_background bake_case "$@"
}
run_sharded() {
  if [ -n "$filter" ] && ! grep -q -- "$filter" <<<"$1"; then return; fi
  in_background bake_sharded "$@"
}

every=manifest,glb,3dtiles,layers,collision,osgb
streamable=manifest,glb,3dtiles,layers,osgb

# The bundled Monaco sample, whole, at every zoom; every variant at z17.
run_case monaco-z16 j2 "$monaco" --zoom 16 -j 2 --format $every
run_case monaco-z17 j1 "$monaco" --zoom 17 -j 1 --format $every
run_case monaco-z17 j2 "$monaco" --zoom 17 -j 2 --format manifest,glb,collision,3dtiles
run_case monaco-z17 streamed "$monaco" --zoom 17 -j 2 --batch-tiles 24 --format $streamable
run_sharded monaco-z17 "$monaco" 2 --zoom 17 -j 2 --format manifest,3dtiles
run_case monaco-z17-plain j2 "$monaco" --zoom 17 -j 2 --format glb --plain-nodes
run_case monaco-z18 j2 "$monaco" --zoom 18 -j 2 --format manifest,glb,3dtiles,collision

# monaco-region (23,000 buildings): whole at z16; a z14 tile's worth of tiles at z17 and a z15
# tile's at z18, with every format.
run_case region-z16 j2 "$region" --zoom 16 -j 2 --format manifest,glb,3dtiles,collision
run_case region-z17 j2 "$region" --zoom 17 -j 2 --tiles 12022303030221 --format $every
run_case region-z17 streamed "$region" --zoom 17 -j 1 --tiles 12022303030221 --batch-tiles 16 --format $streamable
run_sharded region-z17 "$region" 3 --zoom 17 -j 2 --tiles 12022303030221 --format manifest,3dtiles
run_case region-z18 j2 "$region" --zoom 18 -j 2 --tiles 120223030302210 --format $every

# Krems (an OSM XML file): whole at z16, parts at z17 and z18.
run_case krems-z16 j2 "$krems" --zoom 16 -j 2 --format manifest,glb,3dtiles,collision
run_case krems-z17 j2 "$krems" --zoom 17 -j 2 --tiles 12023011200121 --format $every
run_case krems-z17 j1 "$krems" --zoom 17 -j 1 --tiles 12023011200121 --format manifest,glb,collision
run_case krems-z18 j2 "$krems" --zoom 18 -j 2 --tiles 120230112001212 --format $every

while [ "$running" -gt 0 ]; do
  wait -n || failed=$((failed + 1))
  running=$((running - 1))
done
for ((k = 0; k < bakes; k++)); do
  n=$(printf '%03d' "$k")
  cat "$work/lines/$n.txt" >>"$actual"
  cat "$work/lines/$n.log" >>"$log"
done
if [ "$failed" -ne 0 ]; then
  echo "bake_golden: $failed bakes failed; their messages are in $log" >&2
  exit 1
fi

if [ "$mode" = --record ]; then
  # The reference of each case/output is its first variant's line.
  awk '!seen[$1" "$2]++ { print $1, $2, $3 }' "$actual" >"$hashes"
  # Every variant must still agree with it, or recording would hide a determinism bug.
fi

status=0
lines=0
while read -r name entry hash variant; do
  lines=$((lines + 1))
  expected=$(awk -v n="$name" -v e="$entry" '$1 == n && $2 == e { print $3 }' "$hashes")
  if [ -z "$expected" ]; then
    echo "bake_golden: $name $entry ($variant): no recorded hash" >&2
    status=1
  elif [ "$expected" != "$hash" ]; then
    echo "bake_golden: $name $entry ($variant) changed: recorded $expected, now $hash" >&2
    status=1
  fi
done <"$actual"
if [ -z "$filter" ]; then
  recorded=$(wc -l <"$hashes")
  produced=$(awk '{ print $1, $2 }' "$actual" | sort -u | wc -l)
  if [ "$recorded" -ne "$produced" ]; then
    echo "bake_golden: $recorded outputs recorded, $produced produced" >&2
    status=1
  fi
fi
if [ $status -eq 0 ]; then
  echo "bake_golden: $lines outputs match the recorded hashes"
  rm -rf "$work"
fi
exit $status
