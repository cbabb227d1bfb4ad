#!/usr/bin/env bash
# Speed figures for docs/validation.md ("Speed"), measured, never asserted:
# nothing here fails because the machine is slow.
#
#   testdata/bench/run.sh [pairs]        (default 9 pairs; PAIRS=… works too)
#
# 1. capsim's mmc scenario (M/M/4 at utilisation 0.9, one million
#    customers) as a whole process, paired with a minimal hand-written
#    event-scheduling M/M/c loop on the same model: after a warm-up, each
#    pair runs the loop, capsim, and the loop again, and gives one ratio,
#    capsim's time over the loop's mean, in CPU time (user + system of the
#    child process) and in wall time. It prints the median ratios and their
#    spread (the middle half of the pairs, and the lowest and highest),
#    which carry over between machines better than seconds do. On a busy
#    machine the CPU-time ratio is the one to read: a process waiting for
#    a core adds wall time, not CPU time.
#    The loop is built from $YARDSTICK (a directory holding a Go main
#    package taking -n and -seed; default /work/shared/bench/yardstick).
#    Without it, the same comparison runs in one process instead:
#      go test ./model -run '^$' -bench 'MMc$' -benchmem -count 6
#    whose BenchmarkMMc and BenchmarkHandWrittenMMc ns/event are read as a
#    ratio (this script does that when $YARDSTICK is absent).
# 2. The default sweep (capsim sweep, the trip scenario), wall time of
#    $SWEEPS runs (default 3), median and spread.
# 3. A sensitivity analysis as a user runs it (the trip, both v1 designs,
#    every parameter, -r 5): wall time of one run.
# 4. The merge's share: trip -r 40 split over 4 shards (every round's shards
#    run one after another, --workers 1), the CPU time (user + system) of
#    the merge over that of the same sweep on one machine with --workers 1.
# 5. Scale on one machine, in $SCALE interleaved pairs (default 5): the
#    default sweep's wall time with --workers 1 over that with --workers 2,
#    and the machine's own ceiling for it, two independent one-worker
#    sweeps one after the other over the same two at once. Processes on
#    the same cores share their cache and memory as a sweep's workers do,
#    so the second is what two workers can approach, not 2x.
#
# Needs bash 5 ($EPOCHREALTIME) and Go.
set -euo pipefail
cd "$(dirname "$0")/../.."

pairs=${1:-${PAIRS:-9}}
sweeps=${SWEEPS:-3}
yard=${YARDSTICK:-/work/shared/bench/yardstick}
n=1000000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/capsim" ./cmd/capsim
capsim=("$tmp/capsim" run mmc --set journeys.customer.count=$n --set duration=400000s --set warmup=0s)

# elapsed CMD...: wall seconds of CMD, output discarded.
elapsed() {
  local t0=$EPOCHREALTIME
  "$@" >/dev/null
  local t1=$EPOCHREALTIME
  echo "${t0/./} ${t1/./}" | awk '{printf "%.6f\n", ($2 - $1) / 1e6}'
}

# measure CMD...: wall and CPU (user + system) seconds of CMD, output
# discarded. The subshell's `times` (its second line, in bash's 0m0.000s
# form) counts the children it waited for, that is CMD alone; it must not
# run in a pipeline or a substitution, whose fork would count nothing.
measure() {
  (
    t0=$EPOCHREALTIME
    "$@" >/dev/null
    t1=$EPOCHREALTIME
    echo "${t0/./} ${t1/./}"
    times
  ) | awk 'function secs(s, f) { split(s, f, /[ms]/); return f[1] * 60 + f[2] }
    NR == 1 { wall = ($2 - $1) / 1e6 }
    NR == 3 { printf "%.6f %.6f\n", wall, secs($1) + secs($2) }'
}

# stats: median, lowest and highest of the numbers on stdin, then the
# first and third quartiles (nearest rank).
stats() {
  sort -g | awk '{v[NR] = $1} END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    q1 = v[int((NR + 3) / 4)]; q3 = v[NR + 1 - int((NR + 3) / 4)]
    printf "%.3f %.3f %.3f %.3f %.3f\n", m, v[1], v[NR], q1, q3
  }'
}

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if ! git diff --quiet HEAD -- 2>/dev/null; then rev="$rev+changes"; fi
# The processor is part of the record: the ratio moves with it (by a fifth
# between two hosts of the development machine, the code alike), so two
# records compare only on the same processor.
cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1)
cpu=${cpu:-$(uname -m)}
echo "capsim $rev · $(date -u '+%Y-%m-%d %H:%M UTC') · $(go env GOVERSION) · $(nproc) cores · $cpu"

if [ -f "$yard/main.go" ]; then
  go -C "$yard" build -o "$tmp/loop" .
  loop=("$tmp/loop" -n $n -seed 1)
  "${capsim[@]}" >/dev/null
  "${loop[@]}" >/dev/null
  : >"$tmp/pairs"
  for ((i = 0; i < pairs; i++)); do
    # The loop just before and just after, so that a pair shares the
    # machine's state of the moment, on a machine others use too.
    l1=$(measure "${loop[@]}")
    c=$(measure "${capsim[@]}")
    l2=$(measure "${loop[@]}")
    # capsim's wall and CPU seconds, the loop's (mean of the two), and
    # the ratios.
    echo "$c $l1 $l2" | awk '{lw = ($3 + $5) / 2; lc = ($4 + $6) / 2
      printf "%.6f %.6f %.6f %.6f %.4f %.4f\n", $1, $2, lw, lc, $1 / lw, $2 / lc}' >>"$tmp/pairs"
  done
  field() { awk -v k="$1" '{print $k}' "$tmp/pairs" | stats; }
  read -r cwm _ _ _ _ < <(field 1)
  read -r ccm _ _ _ _ < <(field 2)
  read -r lwm _ _ _ _ < <(field 3)
  read -r lcm _ _ _ _ < <(field 4)
  read -r wm wlo whi wq1 wq3 < <(field 5)
  read -r cm clo chi cq1 cq3 < <(field 6)
  echo "M/M/4 (rho 0.9, 1e6 customers), whole process, $pairs paired runs, capsim / hand-written loop:"
  echo "  CPU time:  ${cm}x median, middle half ${cq1}x to ${cq3}x, all from ${clo}x to ${chi}x"
  echo "  wall time: ${wm}x median, middle half ${wq1}x to ${wq3}x, all from ${wlo}x to ${whi}x"
  echo "  medians: capsim ${ccm} s CPU, ${cwm} s wall; loop ${lcm} s CPU, ${lwm} s wall"
else
  echo "no hand-written loop at $yard (set YARDSTICK); in-process benchmarks instead:"
  go test ./model -run '^$' -bench 'MMc$' -count "$pairs" >"$tmp/bench.txt"
  grep -o 'BenchmarkMMc-[0-9]* .*[0-9.]* ns/event' "$tmp/bench.txt" | awk '{print $(NF-1)}' >"$tmp/c"
  grep -o 'BenchmarkHandWrittenMMc-[0-9]* .*[0-9.]* ns/event' "$tmp/bench.txt" | awk '{print $(NF-1)}' >"$tmp/l"
  paste "$tmp/c" "$tmp/l" | awk '{printf "%.4f\n", $1 / $2}' >"$tmp/ratios"
  read -r rm rlo rhi rq1 rq3 < <(stats <"$tmp/ratios")
  read -r cm _ _ _ _ < <(stats <"$tmp/c")
  read -r lm _ _ _ _ < <(stats <"$tmp/l")
  echo "M/M/4 (rho 0.9, 1e5 customers), in process, $pairs runs of each:"
  echo "  BenchmarkMMc / BenchmarkHandWrittenMMc: ${rm}x median, middle half ${rq1}x to ${rq3}x, all from ${rlo}x to ${rhi}x"
  echo "  medians: ${cm} ns/event against ${lm} ns/event"
fi

: >"$tmp/sweep.s"
for ((i = 0; i < sweeps; i++)); do
  rm -rf "$tmp/sweep"
  elapsed "$tmp/capsim" sweep --out "$tmp/sweep" >>"$tmp/sweep.s" 2>/dev/null
done
read -r sm slo shi _ _ < <(stats <"$tmp/sweep.s")
echo "default sweep (trip), $sweeps runs: ${sm} s median (from ${slo} s to ${shi} s)"

scale=${SCALE:-5}
: >"$tmp/scale"
for ((i = 0; i < scale; i++)); do
  rm -rf "$tmp/w1" "$tmp/w2" "$tmp/p1" "$tmp/p2" "$tmp/q1" "$tmp/q2"
  one=$(elapsed "$tmp/capsim" sweep --workers 1 --out "$tmp/w1" 2>/dev/null)
  two=$(elapsed "$tmp/capsim" sweep --workers 2 --out "$tmp/w2" 2>/dev/null)
  apart=$(elapsed sh -c '"$0" sweep --workers 1 --out "$1" && "$0" sweep --workers 1 --out "$2"' \
    "$tmp/capsim" "$tmp/p1" "$tmp/p2" 2>/dev/null)
  together=$(elapsed sh -c '"$0" sweep --workers 1 --out "$1" & "$0" sweep --workers 1 --out "$2"; wait' \
    "$tmp/capsim" "$tmp/q1" "$tmp/q2" 2>/dev/null)
  echo "$one $two $apart $together" | awk '{printf "%.4f %.4f\n", $1 / $2, $3 / $4}' >>"$tmp/scale"
done
read -r xm xlo xhi _ _ < <(awk '{print $1}' "$tmp/scale" | stats)
read -r ym ylo yhi _ _ < <(awk '{print $2}' "$tmp/scale" | stats)
echo "two workers over one (default sweep, $scale pairs): ${xm}x median (from ${xlo}x to ${xhi}x)"
echo "  two one-worker sweeps at once over one after the other: ${ym}x median (from ${ylo}x to ${yhi}x)"

s=$(elapsed "$tmp/capsim" sensitivity trip --design v1-original --design v1-improved --params all -r 5 \
  --out "$tmp/sens" 2>/dev/null)
echo "sensitivity (trip, 2 designs, every parameter, -r 5): ${s} s"

# cpu CMD...: user + system seconds of CMD, output discarded.
cpu() { measure "$@" 2>/dev/null | awk '{print $2}'; }
refine=2
flags=(-r 40 --workers 1 --refine $refine)
single=$(cpu "$tmp/capsim" sweep "${flags[@]}" --out "$tmp/single")
shards=0
for ((r = 0; r <= refine; r++)); do
  for ((i = 0; i < 4; i++)); do
    c=$(cpu "$tmp/capsim" sweep "${flags[@]}" --round "$r" --shard "$i/4" --out "$tmp/shards")
    shards=$(awk -v a="$shards" -v b="$c" 'BEGIN {print a + b}')
  done
done
merge=$(cpu "$tmp/capsim" sweep "${flags[@]}" --merge "$tmp/shards" --out "$tmp/merged")
same=identical; diff -rq "$tmp/single" "$tmp/merged" >/dev/null || same=DIFFERENT
awk -v m="$merge" -v s="$single" -v h="$shards" -v same="$same" 'BEGIN {
  printf "merge (trip -r 40, 4 shards): %.3f s CPU, %.0f %% of one machine'"'"'s %.3f s (shards %.3f s); outputs %s\n",
    m, 100 * m / s, s, h, same }'
