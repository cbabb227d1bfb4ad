#!/bin/sh
# A sharded sweep on a real Slurm: installs Slurm and munge from Debian's
# packages, starts munged, slurmctld and slurmd as this script's own
# processes (one node on 127.0.0.1, configuration and spool folders in a
# temporary folder, ports of their own so a Slurm already on the machine is
# not disturbed), submits every round of the sweep as a job array that
# waits for the round before it (--dependency=afterok), then the merge, and
# checks that the merged folder is byte for byte the single-machine sweep.
# One shard of round 1 fails on its first try, as a node lost mid-job
# would: the rounds after it are cancelled, the shard is rerun alone, and
# the rest resubmitted after it. A job is judged by the state and exit code
# Slurm gives it, not by what it wrote on stderr (progress goes there), and
# the logs of the jobs are shown when one fails. It stops what it started,
# by PID, and exits non-zero on any difference.
#
# Run as root from anywhere: testdata/slurm/e2e.sh
# Environment: CAPSIM_E2E_SHARDS (default 4), CAPSIM_E2E_FLAGS (the sweep,
# default "trip -r 8"), CAPSIM_E2E_REFINE (default 2, the CLI's default),
# CAPSIM_E2E_NO_INSTALL=1 to skip apt-get when the packages are there,
# CAPSIM_E2E_FAIL (default 1/1: round 1's shard 1 fails once, or round 0's
# with CAPSIM_E2E_REFINE=0, whose only round of shards is the grid and
# whose merge runs the few time series runs itself; "" for none).
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
shards=${CAPSIM_E2E_SHARDS:-4}
flags=${CAPSIM_E2E_FLAGS:-trip -r 8}
refine=${CAPSIM_E2E_REFINE:-2}
fail=${CAPSIM_E2E_FAIL-$((refine > 0))/1}
start=$(date +%s)

say() { printf 'e2e %3ss: %s\n' $(($(date +%s) - start)) "$*"; }

if [ "$(id -u)" != 0 ]; then
	echo "e2e: run as root: the daemons and apt-get need it" >&2
	exit 2
fi
if [ "${CAPSIM_E2E_NO_INSTALL:-}" != 1 ]; then
	say "installing slurmctld slurmd slurm-client munge"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		slurmctld slurmd slurm-client munge >/dev/null ||
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends slurmctld slurmd slurm-client munge >/dev/null; }
fi

tmp=$(mktemp -d /tmp/capsim-slurm-e2e.XXXXXX)
chmod 755 "$tmp"
pids=""
stop() {
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		# wait only works for children; the daemons fork away, so poll.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.2
		done
		kill -9 "$p" 2>/dev/null || true
	done
	if [ "${CAPSIM_E2E_KEEP:-}" = 1 ]; then
		echo "e2e: left $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap stop EXIT
trap 'exit 130' INT TERM

say "building capsim"
(cd "$repo" && go build -o "$tmp/capsim" ./cmd/capsim)

# munge: its own key, socket, pid and log.
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
	--pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munge.seed"
for _ in $(seq 50); do [ -s "$tmp/munge/munged.pid" ] && break; sleep 0.1; done
pids="$pids $(cat "$tmp/munge/munged.pid")"

# Slurm: one node with the machine's cores, everything under $tmp.
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/work"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=capsim-e2e
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MessageTimeout=20
NodeName=capsim-e2e NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus State=UNKNOWN
PartitionName=e2e Nodes=capsim-e2e Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
export SLURM_CONF="$tmp/slurm.conf"

say "starting slurmctld and slurmd"
slurmctld -i
for _ in $(seq 50); do [ -s "$tmp/slurmctld.pid" ] && break; sleep 0.1; done
pids="$pids $(cat "$tmp/slurmctld.pid")"
slurmd -N capsim-e2e
for _ in $(seq 50); do [ -s "$tmp/slurmd.pid" ] && break; sleep 0.1; done
pids="$pids $(cat "$tmp/slurmd.pid")"
for i in $(seq 100); do
	state=$(sinfo -h -N -o %t 2>/dev/null || true)
	case $state in idle*) break ;; esac
	[ "$i" = 100 ] && { echo "e2e: the node did not come up ($state)" >&2; tail -20 "$tmp/log/slurmd.log" "$tmp/log/slurmctld.log" >&2; exit 1; }
	sleep 0.2
done
say "node up: $(sinfo -h -N -o '%N %t %c cpus')"

# A shard's command: the sweep, except for the shard chosen to fail, which
# fails on its first try (a marker file says it has tried).
cat >"$tmp/shard.sh" <<EOF
#!/bin/sh
round=\$1 shard=\$2
if [ "\$round/\$shard" = "$fail" ] && [ ! -e "$tmp/work/failed-once" ]; then
	touch "$tmp/work/failed-once"
	echo "shard \$shard of round \$round: failing on purpose, once" >&2
	exit 1
fi
exec "$tmp/capsim" sweep $flags --refine $refine --workers 1 --round "\$round" --shard "\$shard/$shards" --out "$tmp/work/shards"
EOF
chmod 755 "$tmp/shard.sh"

out="$tmp/work/shards"
# submit ROUND TASKS [AFTER]: one array job of the round's shards (all, or
# the ones listed), after job AFTER; prints its id.
submit() {
	sbatch --parsable -J "capsim-r$1" --array="$2" -c 1 --kill-on-invalid-dep=yes ${3:+--dependency=afterok:$3} \
		-D "$tmp/work" -o "$tmp/log/round-$1-%a.out" -e "$tmp/log/round-$1-%a.err" \
		--wrap "$tmp/shard.sh $1 \$SLURM_ARRAY_TASK_ID"
}
merge() {
	sbatch --parsable -J capsim-merge --kill-on-invalid-dep=yes --dependency="afterok:$1" -D "$tmp/work" \
		-o "$tmp/log/merge.out" -e "$tmp/log/merge.err" \
		--wrap "$tmp/capsim sweep $flags --refine $refine --merge $out --out $tmp/work/merged"
}
# wait_jobs: until the queue is empty (a job whose dependency failed is
# cancelled, not left pending).
wait_jobs() {
	for _ in $(seq 600); do
		[ "$(squeue -h -o %i 2>/dev/null | wc -l)" = 0 ] && return 0
		sleep 1
	done
	echo "e2e: jobs still queued after 10 min" >&2
	squeue >&2
	exit 1
}
# states JOB...: "id state exitcode" for every task of the jobs, the id of
# an array's task being JOB_TASK.
states() {
	for j in "$@"; do
		scontrol show job -o "$j" 2>/dev/null | tr ' ' '\n' | awk -F= '
			$1 == "JobId" { if (id != "") print id, st, ec; id = $2; task = "" }
			$1 == "ArrayJobId" { id = $2 }
			$1 == "ArrayTaskId" { id = id "_" $2 }
			$1 == "JobState" { st = $2 }
			$1 == "ExitCode" { ec = $2 }
			END { if (id != "") print id, st, ec }'
	done
}
# judge WHAT ID...: every task COMPLETED with exit code 0:0, else the
# failing ones and the tails of the logs on stderr.
judge() {
	what=$1
	shift
	bad=$(states "$@" | awk '$2 != "COMPLETED" || $3 != "0:0"')
	[ -z "$bad" ] && return 0
	echo "e2e: $what: not every job completed:" >&2
	echo "$bad" >&2
	for f in "$tmp"/log/*.err; do
		[ -s "$f" ] && { echo "--- $(basename "$f"):" >&2; tail -5 "$f" >&2; }
	done
	return 1
}

# The rounds: one array job each, starting once the previous round is done;
# each task gets one core and the sweep's --workers follows it.
all="0-$((shards - 1))"
dep=""
for r in $(seq 0 "$refine"); do
	j=$(submit "$r" "$all" "$dep")
	say "round $r: job array $j ($shards tasks)${dep:+ after $dep}"
	eval "job_$r=$j"
	dep=$j
done
m=$(merge "$dep")
say "merge: job $m after $dep"

# Meanwhile, the same sweep on this machine, outside Slurm.
"$tmp/capsim" sweep $flags --refine $refine --out "$tmp/work/single" 2>/dev/null >/dev/null
wait_jobs

# What must have completed: the rounds before the failing one, and the
# failing round's other shards; then the rerun and everything after it.
done_jobs=""
first=0
if [ -n "$fail" ]; then
	fr=${fail%/*} fs=${fail#*/}
	eval "fj=\$job_$fr"
	st=$(states "$fj" | awk -v t="${fj}_$fs" '$1 == t { print $2, $3 }')
	case $st in
	"FAILED 1:0") say "round $fr shard $fs failed as planned; the jobs after it were cancelled" ;;
	*) echo "e2e: round $fr shard $fs should have failed, got '$st'" >&2; exit 1 ;;
	esac
	[ -d "$tmp/work/merged" ] && { echo "e2e: the merge ran after a failed shard" >&2; exit 1; }
	r=0
	while [ "$r" -lt "$fr" ]; do
		eval "done_jobs=\"\$done_jobs \$job_$r\""
		r=$((r + 1))
	done
	judge "the rounds before the failure, and the other shards of round $fr" $done_jobs \
		$(states "$fj" | awk -v t="${fj}_$fs" '$1 != t { print $1 }') || exit 1
	dep=$(submit "$fr" "$fs" "")
	say "round $fr: shard $fs rerun as job $dep"
	done_jobs="$dep"
	r=$((fr + 1))
	while [ "$r" -le "$refine" ]; do
		j=$(submit "$r" "$all" "$dep")
		say "round $r: resubmitted as job array $j after $dep"
		done_jobs="$done_jobs $j"
		dep=$j
		r=$((r + 1))
	done
	m=$(merge "$dep")
	say "merge: resubmitted as job $m after $dep"
	wait_jobs
else
	for r in $(seq 0 "$refine"); do
		eval "done_jobs=\"\$done_jobs \$job_$r\""
	done
fi
judge "the rounds and the merge" $done_jobs "$m" || exit 1
[ -d "$tmp/work/merged" ] || { echo "e2e: the merge wrote nothing" >&2; exit 1; }
say "$(ls "$out" | wc -l) shard files; every job completed with exit code 0"
if diff -r "$tmp/work/single" "$tmp/work/merged" >&2; then
	say "PASS: the merged folder ($(find "$tmp/work/merged" -type f | wc -l) files) is byte for byte the single-machine sweep"
else
	say "FAIL: the merged folder differs from the single-machine sweep"
	exit 1
fi
