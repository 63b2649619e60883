#!/usr/bin/env bash
# bench/parse.sh - our slurm.conf parser against Slurm's own, in one run
# (issue 15, P2).
#
# Generates two slurm.conf files, SMALL and BIG lines (default 22000 and
# 88000: node lines inheriting a NodeName=DEFAULT, 200 partitions, a few
# global keys), and on each times N runs of `mdcctl conf check` (our
# parser and checks; Slurm's verdict child turned off with
# MDC_LIBSLURMFULL=, it is Slurm's parse again) against N runs of Slurm's
# client-side parse of the same file (`scontrol show hostnames`, which
# reads the whole file first), the two interleaved run by run so load on
# the machine hits both alike.  Times are CPU seconds (user + sys, what
# the parse costs; wall time follows the machine's load) with wall time
# shown too.  Memory is the peak RSS of one run of each, and per line the
# growth from SMALL to BIG divided by the lines added (so a program's fixed
# start-up size does not count).  A 20-line file gives each program's
# start-up cost, and the per-line ratio leaves it out.  Absolute numbers depend on the machine;
# the ratios are what to compare between versions.
#
#   bench/parse.sh [BUILD_DIR] [N]      (default: build, 10)
#   SMALL=22000 BIG=88000 PARTS=200
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-10}
SMALL=${SMALL:-22000}
BIG=${BIG:-88000}
PARTS=${PARTS:-200}
mdcctl=$build/mdcctl
[ -x "$mdcctl" ] || { echo "bench: build first ($mdcctl missing)" >&2; exit 1; }
command -v scontrol >/dev/null || { echo "bench: scontrol not installed (scripts/install-deps)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (Debian: time)" >&2; exit 1; }

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# gen FILE LINES [PARTS]: a slurm.conf of LINES lines
gen() {
	local conf=$1 parts=${3:-$PARTS} nodes=$(($2 - ${3:-$PARTS} - 15)) i p
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
		for ((i = 0; i < nodes; i++)); do
			printf 'NodeName=n%05d NodeAddr=10.%d.%d.%d Feature=f%d Weight=%d\n' \
				"$i" $((i / 65536 % 256)) $((i / 256 % 256)) $((i % 256)) $((i % 7)) $((i % 13 + 1))
		done
		echo "NodeSet=all Nodes=n[00000-$(printf '%05d' $((nodes - 1)))]"
		for ((p = 0; p < parts; p++)); do
			printf 'PartitionName=p%03d Nodes=all MaxTime=%d-00:00:00 PriorityTier=%d PreemptMode=REQUEUE State=UP\n' \
				"$p" $((p % 7 + 1)) $((p % 5))
		done
	} > "$conf"
}

ours() { MDC_LIBSLURMFULL= "$mdcctl" conf check "$1" >/dev/null; }
slurm() { SLURM_CONF=$1 scontrol show hostnames x >/dev/null; }

# timed CMD FILE: "wall cpu" of one run
timed() {
	local TIMEFORMAT='%R %U %S' t
	t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
	awk '{ printf "%s %.3f\n", $1, $2 + $3 }' <<<"$t"
}

# rss CMD FILE: peak RSS of one run, KB
rss() {
	local f=$2
	case $1 in
	ours) MDC_LIBSLURMFULL= /usr/bin/time -f %M "$mdcctl" conf check "$f" 2>&1 >/dev/null | tail -n 1 ;;
	slurm) SLURM_CONF=$f /usr/bin/time -f %M scontrol show hostnames x 2>&1 >/dev/null | tail -n 1 ;;
	esac
}

results=$dir/results
: > "$results"
for size in 20 "$SMALL" "$BIG"; do
	conf=$dir/slurm-$size.conf
	if [ "$size" = 20 ]; then
		gen "$conf" 20 1	# the start-up cost of each program
	else
		gen "$conf" "$size"
	fi
	lines=$(wc -l < "$conf")
	# sanity: both accept the file
	ours "$conf" || { echo "bench: mdcctl conf check refuses $conf" >&2; exit 1; }
	slurm "$conf" || { echo "bench: scontrol refuses $conf" >&2; exit 1; }
	for ((i = 0; i < n; i++)); do
		echo "$size $lines ours $(timed ours "$conf")" >> "$results"
		echo "$size $lines slurm $(timed slurm "$conf")" >> "$results"
	done
	echo "$size $lines rss ours $(rss ours "$conf")" >> "$results"
	echo "$size $lines rss slurm $(rss slurm "$conf")" >> "$results"
done

awk -v small="$SMALL" -v big="$BIG" -v n="$n" '
$3 == "rss" { rss[$1, $4] = $5; lines[$1] = $2; next }
{ wall[$1, $3] += $4; cpu[$1, $3] += $5; lines[$1] = $2 }
END {
	for (k = 1; k <= 2; k++) {
		s = k == 1 ? small : big
		printf "%d lines, %d runs each: mdcctl conf check %.1f ms cpu (%.1f wall), scontrol %.1f ms cpu (%.1f wall)\n",
			lines[s], n, cpu[s, "ours"] * 1000 / n, wall[s, "ours"] * 1000 / n,
			cpu[s, "slurm"] * 1000 / n, wall[s, "slurm"] * 1000 / n
		printf "   peak RSS: ours %d KB, Slurm %d KB\n", rss[s, "ours"], rss[s, "slurm"]
	}
	printf "start-up (a %d-line file): mdcctl conf check %.1f ms cpu, scontrol %.1f ms cpu\n",
		lines[20], cpu[20, "ours"] * 1000 / n, cpu[20, "slurm"] * 1000 / n
	dl = lines[big] - lines[small]
	mo = (rss[big, "ours"] - rss[small, "ours"]) * 1024 / dl
	ms = (rss[big, "slurm"] - rss[small, "slurm"]) * 1024 / dl
	printf "memory per line (RSS growth / lines added): ours %.0f B, Slurm %.0f B\n", mo, ms
	printf "ratio parse/slurm at %d lines (cpu): %.3f (target <= 0.05)\n", lines[small], cpu[small, "ours"] / cpu[small, "slurm"]
	printf "ratio parse/slurm at %d lines (cpu): %.3f\n", lines[big], cpu[big, "ours"] / cpu[big, "slurm"]
	printf "ratio parse/slurm at %d lines (wall): %.3f\n", lines[small], wall[small, "ours"] / wall[small, "slurm"]
	printf "ratio parse/slurm per line (cpu growth %d to %d lines): %.3f (start-up left out)\n", lines[small], lines[big],
		(cpu[big, "ours"] - cpu[small, "ours"]) / (cpu[big, "slurm"] - cpu[small, "slurm"])
	printf "ratio parse growth %d/%d lines: %.2f (linear: %.2f; Slurm %.2f)\n", lines[big], lines[small],
		cpu[big, "ours"] / cpu[small, "ours"], lines[big] / lines[small], cpu[big, "slurm"] / cpu[small, "slurm"]
	printf "ratio memory per line ours/slurm: %.2f (target <= 1)\n", mo / ms
}' "$results"
