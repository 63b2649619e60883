#!/usr/bin/env bash
# bench/verdict.sh - the controller's verdict against the controller's own
# start, in one run (issue 24 item 1, P5).
#
# `mdcctl conf check FILE` runs the whole verdict: our parser and checks,
# Slurm's client parser (the libslurmfull child) and slurmctld's sandboxed
# start-up (lib/mdc_slurmcheck.c: unshare --net --uts --pid, its paths
# rewritten into a scratch directory, until it listens).  Against it:
# that same slurmctld started bare on the same file (it already names
# scratch paths and SlurmUser=root) until it listens, in the same kind of
# namespaces (its own network: it must not bind the host's ports, and the
# wait for LISTEN is the library's), nothing of ours around it.  The two
# are interleaved run by run, N each, medians of wall time; the ratio is
# verdict/start (goal <= 1.5).  The verdict without slurmctld's start-up
# (MDC_SLURMCTLD=) is shown too: what the other two checks cost.  Two
# files: a lab-sized one and one of NODES nodes and PARTS partitions.
#
#   bench/verdict.sh [BUILD_DIR] [N]     (default: build, 10)
#   NODES=1000 PARTS=50
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-10}
NODES=${NODES:-1000}
PARTS=${PARTS:-50}
mdcctl=$build/mdcctl
ctld=${MDC_SLURMCTLD:-/usr/sbin/slurmctld}
# BENCH_RELEASE (bench/run --release): mdcctl is bench/run's wrapper (one
# release-root exec, then its sandboxed slurmctld in the root), so the bare
# start runs through one release-root exec too, that release's slurmctld
inroot=()
[ -z "${BENCH_RELEASE:-}" ] || inroot=("$top/scripts/release-root" exec "$BENCH_RELEASE" --)
[ -x "$mdcctl" ] || { echo "bench: build first ($mdcctl missing)" >&2; exit 1; }
[ -x "$ctld" ] || { echo "bench: no slurmctld at $ctld (Debian: slurmctld)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (unshare --net)" >&2; exit 1; }
command -v unshare >/dev/null && command -v ip >/dev/null ||
	{ echo "bench: needs unshare and ip (util-linux, iproute2)" >&2; exit 1; }

dir=$(mktemp -d)
mpid=
trap '[ -z "$mpid" ] || { kill "$mpid"; wait "$mpid"; } 2>/dev/null; rm -rf "$dir"' EXIT

# a munged of our own (AuthInfo=socket=): without one slurmctld's
# auth/munge start-up waits about 2 s for the socket, on both sides alike,
# which would hide the verdict's own cost
sock=
if command -v munged >/dev/null && command -v mungekey >/dev/null; then
	mkdir -p "$dir/munge" && chmod 700 "$dir/munge"
	# munged itself in the background (not a list: $! must be its pid)
	if mungekey --create --keyfile="$dir/munge/key" 2>/dev/null; then
		munged --foreground --force --socket="$dir/munge/sock" --key-file="$dir/munge/key" \
			--pid-file="$dir/munge/pid" --log-file="$dir/munge/log" \
			--seed-file="$dir/munge/seed" >/dev/null 2>&1 &
		mpid=$!
	fi
	for ((i = 0; i < 100; i++)); do [ -S "$dir/munge/sock" ] && break; sleep 0.05; done
	[ -S "$dir/munge/sock" ] && sock=$dir/munge/sock
fi
[ -n "$sock" ] || echo "bench: no munged of our own: slurmctld's start waits for munge (about 2 s)" >&2

# gen FILE NODES PARTS: a slurm.conf slurmctld can start on, as it is
gen() {
	local conf=$1 nodes=$2 parts=$3 s=$dir/$(basename "$1" .conf) p
	mkdir -p "$s/state" "$s/spool"
	chmod 700 "$s/state"
	{
		echo "ClusterName=bench"
		echo "SlurmctldHost=benchctl(127.0.0.1)"
		echo "AuthType=auth/munge"
		[ -z "$sock" ] || echo "AuthInfo=socket=$sock"
		echo "SlurmUser=root"
		echo "StateSaveLocation=$s/state"
		echo "SlurmdSpoolDir=$s/spool"
		echo "SlurmctldPidFile=$s/ctld.pid"
		echo "SlurmctldLogFile=$s/ctld.log"
		echo "ProctrackType=proctrack/linuxproc"
		echo "SelectType=select/cons_tres"
		echo "SelectTypeParameters=CR_Core_Memory"
		echo "SchedulerParameters=bf_continue,bf_window=1440"
		echo "PriorityType=priority/multifactor"
		echo "NodeName=DEFAULT CPUs=64 RealMemory=256000 State=CLOUD"
		echo "NodeName=n[00000-$(printf '%05d' $((nodes - 1)))]"
		echo "NodeSet=all Nodes=n[00000-$(printf '%05d' $((nodes - 1)))]"
		for ((p = 0; p < parts; p++)); do
			printf 'PartitionName=p%03d Nodes=all MaxTime=%d-00:00:00 PriorityTier=%d%s\n' \
				"$p" $((p % 7 + 1)) $((p % 5)) "$([ "$p" = 0 ] && echo ' Default=YES')"
		done
	} >"$conf"
}

# slurmctld alone on FILE in its own namespaces, until it listens
bare() {
	"${inroot[@]}" unshare --net --uts --pid --fork --kill-child bash -c '
		hostname benchctl && ip link set lo up && ip addr add 192.0.2.1/32 dev lo || exit 97
		"$1" -D -c -i -f "$2" >"$3" 2>&1 </dev/null &
		p=$!
		while kill -0 $p 2>/dev/null; do
			if grep -qs " 0A " /proc/net/tcp /proc/net/tcp6; then kill -9 $p; exit 0; fi
			sleep 0.005
		done
		exit 1' bench-ctld "$ctld" "$1" "$dir/bare.out"
}
verdict() { "$mdcctl" conf check "$1" >"$dir/verdict.out" 2>&1; }
noctld() { MDC_SLURMCTLD= "$mdcctl" conf check "$1" >/dev/null 2>&1; }

# ms CMD FILE: wall milliseconds of one run (fails if CMD fails)
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" || return 1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run() {
	local name=$1 conf=$2 i a b c
	: >"$dir/a"; : >"$dir/b"; : >"$dir/c"
	verdict "$conf" || { echo "bench: the verdict refused $name:" >&2; cat "$dir/verdict.out" >&2; exit 1; }
	grep -q "slurmctld's start-up (" "$dir/verdict.out" ||
		{ echo "bench: the verdict did not run slurmctld on $name:" >&2; cat "$dir/verdict.out" >&2; exit 1; }
	bare "$conf" || { echo "bench: slurmctld did not start on $name:" >&2; tail -5 "$dir/bare.out" >&2; exit 1; }
	for ((i = 0; i < n; i++)); do
		# alternate which side goes first, so drift in load hits both
		if ((i % 2)); then
			a=$(ms verdict "$conf") && b=$(ms bare "$conf")
		else
			b=$(ms bare "$conf") && a=$(ms verdict "$conf")
		fi || { echo "bench: a run failed on $name" >&2; exit 1; }
		c=$(ms noctld "$conf")
		echo "$a" >>"$dir/a"; echo "$b" >>"$dir/b"; echo "$c" >>"$dir/c"
	done
	a=$(median <"$dir/a"); b=$(median <"$dir/b"); c=$(median <"$dir/c")
	echo "$name ($(wc -l <"$conf") lines): verdict $a ms (median of $n; without slurmctld's start-up $c ms), slurmctld's own start to listening $b ms"
	awk -v a="$a" -v b="$b" -v name="$name" \
		'BEGIN { printf "ratio verdict/slurmctld start, %s: %.2f (goal <= 1.5)\n", name, a / b }'
}

gen "$dir/lab.conf" 2 2
gen "$dir/big.conf" "$NODES" "$PARTS"
echo "slurmctld $("${inroot[@]}" "$ctld" -V 2>&1 | head -1), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), munged: $([ -n "$sock" ] && echo "our own" || echo none)"
run lab "$dir/lab.conf"
run "$NODES nodes" "$dir/big.conf"
