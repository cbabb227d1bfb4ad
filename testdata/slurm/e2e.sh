#!/bin/sh
# A sharded sweep on a real Slurm: installs Slurm and munge from Debian's
# packages, starts munged, slurmctld and slurmd as this script's own
# processes (one node on 127.0.0.1, configuration and spool folders in a
# temporary folder, ports of their own so a Slurm already on the machine is
# not disturbed), submits every round of the sweep as a job array that
# waits for the round before it (--dependency=afterok), then the merge, and
# checks that the merged folder is byte for byte the single-machine sweep.
# It stops what it started, by PID, and exits non-zero on any difference.
#
# Run as root from anywhere: testdata/slurm/e2e.sh
# Environment: CAPSIM_E2E_SHARDS (default 4), CAPSIM_E2E_FLAGS (the sweep,
# default "trip -r 8"), CAPSIM_E2E_REFINE (default 2, the CLI's default),
# CAPSIM_E2E_NO_INSTALL=1 to skip apt-get when the packages are there.
set -eu

repo=$(cd "$(dirname "$0")/../.." && pwd)
shards=${CAPSIM_E2E_SHARDS:-4}
flags=${CAPSIM_E2E_FLAGS:-trip -r 8}
refine=${CAPSIM_E2E_REFINE:-2}
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

# The rounds: one array job each, starting once the previous round is done.
# Each task gets one core; the sweep's --workers follows it.
out="$tmp/work/shards"
dep=""
for r in $(seq 0 "$refine"); do
	j=$(sbatch --parsable -J "capsim-r$r" --array="0-$((shards - 1))" -c 1 $dep -D "$tmp/work" \
		-o "$tmp/log/round-$r-%a.out" -e "$tmp/log/round-$r-%a.err" \
		--wrap "$tmp/capsim sweep $flags --refine $refine --workers 1 --round $r --shard \$SLURM_ARRAY_TASK_ID/$shards --out $out")
	say "round $r: job array $j ($shards tasks) ${dep:+after $prev}"
	dep="--dependency=afterok:$j"
	prev=$j
done
m=$(sbatch --parsable -J capsim-merge $dep -D "$tmp/work" -o "$tmp/log/merge.out" -e "$tmp/log/merge.err" \
	--wrap "$tmp/capsim sweep $flags --refine $refine --merge $out --out $tmp/work/merged")
say "merge: job $m after $prev"

# Meanwhile, the same sweep on this machine, outside Slurm.
"$tmp/capsim" sweep $flags --refine $refine --out "$tmp/work/single" >/dev/null

for i in $(seq 600); do
	left=$(squeue -h -o %i 2>/dev/null | wc -l)
	[ "$left" = 0 ] && break
	[ "$i" = 600 ] && { echo "e2e: jobs still queued after 10 min" >&2; squeue >&2; exit 1; }
	sleep 1
done
failed=0
for f in "$tmp"/log/round-*.err "$tmp/log/merge.err"; do
	if [ -s "$f" ]; then
		echo "e2e: $(basename "$f"):" >&2
		cat "$f" >&2
		failed=1
	fi
done
[ -d "$tmp/work/merged" ] || { echo "e2e: the merge wrote nothing" >&2; exit 1; }
say "$(ls "$out" | wc -l) shard files; $(cat "$tmp/log/merge.out" | tail -1)"
if diff -r "$tmp/work/single" "$tmp/work/merged" >&2 && [ "$failed" = 0 ]; then
	say "PASS: the merged folder ($(find "$tmp/work/merged" -type f | wc -l) files) is byte for byte the single-machine sweep"
else
	say "FAIL: the merged folder differs from the single-machine sweep"
	exit 1
fi
