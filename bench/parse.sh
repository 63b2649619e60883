#!/usr/bin/env bash
# bench/parse.sh - our slurm.conf parser against Slurm's own, in one run.
#
# Generates a large slurm.conf (NODES node lines, PARTS partitions, a few
# hundred global keys) and times N full parses by `mdcctl conf check` and by
# Slurm's client-side parse (`scontrol show hostnames`, which reads the whole
# file first).  Prints both totals and their ratio; absolute numbers depend
# on the machine, the ratio is what to compare between versions.
#
#   bench/parse.sh [BUILD_DIR] [N]      (default: build, 20)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-20}
NODES=${NODES:-5000}
PARTS=${PARTS:-200}
mdcctl=$build/mdcctl
[ -x "$mdcctl" ] || { echo "bench: build first ($mdcctl missing)" >&2; exit 1; }
command -v scontrol >/dev/null || { echo "bench: scontrol not installed (scripts/install-deps)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
conf=$dir/slurm.conf
{
	echo "ClusterName=bench"
	echo "SlurmctldHost=$(hostname -s)(127.0.0.1)"
	echo "AuthType=auth/munge"
	echo "StateSaveLocation=$dir/state"
	echo "SlurmdSpoolDir=$dir/spool"
	echo "ProctrackType=proctrack/linuxproc"
	echo "SchedulerParameters=bf_continue,bf_window=1440,bf_resolution=600"
	echo "PriorityType=priority/multifactor"
	for k in Age Fairshare JobSize Partition QOS; do echo "PriorityWeight$k=1000"; done
	echo "NodeName=DEFAULT CPUs=64 RealMemory=256000 State=UNKNOWN"
	for ((i = 0; i < NODES; i++)); do
		printf 'NodeName=n%05d NodeAddr=10.%d.%d.%d Feature=f%d Weight=%d\n' \
			"$i" $((i / 65536 % 256)) $((i / 256 % 256)) $((i % 256)) $((i % 7)) $((i % 13 + 1))
	done
	echo "NodeSet=all Nodes=n[00000-$(printf '%05d' $((NODES - 1)))]"
	for ((p = 0; p < PARTS; p++)); do
		printf 'PartitionName=p%03d Nodes=all MaxTime=%d-00:00:00 PriorityTier=%d PreemptMode=REQUEUE State=UP\n' \
			"$p" $((p % 7 + 1)) $((p % 5))
	done
} > "$conf"

# sanity: both accept the file
"$mdcctl" conf check "$conf" >/dev/null
SLURM_CONF=$conf scontrol show hostnames x >/dev/null

now() { date +%s.%N; }
t0=$(now); for ((i = 0; i < n; i++)); do "$mdcctl" conf check "$conf" >/dev/null; done; t1=$(now)
for ((i = 0; i < n; i++)); do SLURM_CONF=$conf scontrol show hostnames x >/dev/null; done; t2=$(now)
# conf check also runs Slurm's own parser in a child (the verdict): our
# parser and checks alone, with libslurmfull turned off
for ((i = 0; i < n; i++)); do MDC_LIBSLURMFULL= "$mdcctl" conf check "$conf" >/dev/null; done; t3=$(now)

awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v n="$n" -v l="$(wc -l < "$conf")" 'BEGIN {
	ours = b - a; slurm = c - b; alone = d - c
	printf "file: %d lines, %d parses each\n", l, n
	printf "mdcctl conf check: %.3f s total, %.1f ms/parse\n", ours, ours * 1000 / n
	printf "scontrol (Slurm parser): %.3f s total, %.1f ms/parse\n", slurm, slurm * 1000 / n
	printf "mdcctl conf check, Slurm child off: %.3f s total, %.1f ms/parse\n", alone, alone * 1000 / n
	printf "ratio ours/slurm: %.2f\n", ours / slurm
	printf "ratio ours without the Slurm child/slurm: %.2f (target <= 0.05 at 22k lines)\n", alone / slurm
}'
