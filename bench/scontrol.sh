#!/usr/bin/env bash
# bench/scontrol.sh - a managed partition change until slurmctld shows it
# (issue 15, P3), in one run on real labs (root: munged, slurmctld, slurmd
# and the emulator of `scripts/slurm-lab up --managed`).
#
# 1. --lro-seconds 0: R interleaved rounds of
#    a. `mdc-scontrol update partitionname=debug MaxTime=V`, then
#       `scontrol show partition debug` every 10 ms until it shows V (the
#       emulator PATCHes, regenerates slurm.conf and reconfigures), and
#    b. what an admin of an unmanaged cluster runs: `scontrol update
#       partitionname=debug MaxTime=V` + `scontrol reconfigure`.
#    Medians; ratio a/b, goal <= 2.0 (mdc-scontrol's own libcurl
#    request to the API).  Between a and b the bench waits,
#    untimed, for the reload the emulator runs after a (DIR/run/sync.count):
#    otherwise that reconfigure falls into b's time or a's next, and a
#    round now and then takes seconds.
#    Then the same through the broker (`slurm-lab up --managed --broker`:
#    mdc-scontrol talks to mdcd's socket, mdcd to the API over its warm
#    connection): goal <= 1.5.  Each again with MDC_SLURMCTLD empty (no
#    sandboxed slurmctld start-up in the verdict, for the client and for
#    mdcd), to show what that verdict costs: not a goal, a breakdown.
# 2. --lro-seconds D (a third lab, D = 1): the same (a); the time beyond
#    the emulator's delay, goal <= 150 ms, printed as the ratio
#    a / (D + 0.15 s), goal <= 1.
#
#   bench/scontrol.sh [BUILD_DIR] [R] [D]     (default: build, 15, 1)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
rounds=${2:-15}
delay=${3:-1}
for p in mdc-scontrol mdc-emulator; do
	[ -x "$build/$p" ] || { echo "bench: build first ($build/$p missing)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench: needs root (real Slurm daemons)" >&2; exit 1; }
command -v scontrol >/dev/null || { echo "bench: needs Slurm's scontrol" >&2; exit 1; }

dir=$(mktemp -d)
lab=$top/scripts/slurm-lab
labs=()
cleanup() {
	local l
	for l in "${labs[@]}"; do "$lab" down "$l" >/dev/null 2>&1 || true; done
	rm -rf "$dir"
}
trap cleanup EXIT
export MDC_BUILDDIR=$build MDC_CONF=$dir/mdc.conf MDC_LOCK_DIR=$dir
: >"$MDC_CONF"

# up NAME LRO [OPTION...]: a managed lab; its environment (SLURM_CONF,
# MDC_*, MDC_BROKER with --broker) is exported
up() {
	local name=$1 lro=$2
	shift 2
	labs+=("$dir/$name")
	LAB=$dir/$name
	unset MDC_BROKER MDC_MUNGE_SOCKET
	# BENCH_RELEASE (bench/run --release): that release's lab; its wrappers
	# go first on PATH, so scontrol on both sides pays the same chroot start
	eval "$("$lab" up "$dir/$name" ${BENCH_RELEASE:+--release "$BENCH_RELEASE"} --managed \
		--lro-seconds "$lro" "$@" 2>"$dir/$name.err")" ||
		{ cat "$dir/$name.err" >&2; exit 1; }
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.6f\n", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
maxtime() { scontrol show partition debug --oneliner | sed -n 's/.* MaxTime=\([^ ]*\).*/\1/p'; }

# managed V: seconds from mdc-scontrol update to MaxTime=V minutes shown
managed() {
	local v=$1 t0 i
	t0=$(now)
	"$build/mdc-scontrol" update partitionname=debug "MaxTime=$v" >/dev/null
	for ((i = 0; i < 3000; i++)); do
		[ "$(maxtime)" = "00:$v:00" ] && { since "$t0"; return 0; }
		sleep 0.01
	done
	echo "bench: MaxTime=$v not shown after 30 s (is: $(maxtime))" >&2
	exit 1
}
# quiet: wait (untimed) until the emulator has run the reload the last
# managed round caused, so that it falls in no round's time
quiet() {
	local i n
	for ((i = 0; i < 300; i++)); do
		read -r n _ 2>/dev/null <"$LAB/run/sync.count" || n=0
		[ "$n" -gt "$1" ] && return 0
		sleep 0.01
	done
	echo "bench: the emulator's reload did not come (sync.count $n)" >&2
	exit 1
}
syncs() { local n; read -r n _ 2>/dev/null <"$LAB/run/sync.count" || n=0; echo "$n"; }
# plain V: seconds of scontrol update + scontrol reconfigure
plain() {
	local t0
	t0=$(now)
	scontrol update partitionname=debug "MaxTime=$1"
	scontrol reconfigure
	since "$t0"
}

# --- 1. lro 0: against plain scontrol, direct and through the broker -------------
# rounds WHAT GOAL: R interleaved managed/plain rounds on the lab up now
rounds_vs_plain() {
	local m=() p=() r n mm pm
	for ((r = 0; r < rounds; r++)); do
		n=$(syncs)
		m+=("$(managed $((10 + 2 * r)))")
		quiet "$n"
		p+=("$(plain $((11 + 2 * r)))")
	done
	mm=$(printf '%s\n' "${m[@]}" | median)
	pm=$(printf '%s\n' "${p[@]}" | median)
	printf 'lro 0 %s: mdc-scontrol update until shown %.3f s (rounds: %s)\n' "$1" "$mm" "${m[*]}"
	printf 'lro 0 %s: scontrol update + reconfigure %.3f s (rounds: %s)\n' "$1" "$pm" "${p[*]}"
	printf 'ratio managed/plain (lro 0, %s): %.2f (%s)\n' "$1" \
		"$(awk -v a="$mm" -v b="$pm" 'BEGIN { print a / b }')" \
		"$([ "$2" = none ] && echo "a breakdown, no goal" || echo "goal <= $2")"
}
# lab NAME GOAL [OPTION...]: a lab, its rounds, down again
lab_rounds() {
	local name=$1 goal=$2
	shift 2
	up "$name" 0 "$@"
	rounds_vs_plain "$name" "$goal"
	"$lab" down "$dir/$name" >/dev/null 2>&1 || true
	labs=()
}
lab_rounds direct 2.0
lab_rounds broker 1.5 --broker
# (mdcd inherits MDC_SLURMCTLD from slurm-lab's environment)
MDC_SLURMCTLD='' lab_rounds direct-no-ctld-verdict none
MDC_SLURMCTLD='' lab_rounds broker-no-ctld-verdict none --broker
unset MDC_BROKER MDC_MUNGE_SOCKET

# --- 2. lro D: against the emulator's delay + 150 ms -----------------------------
up slow "$delay"
m=()
for ((r = 0; r < rounds; r++)); do
	m+=("$(managed $((10 + 2 * r)))")
done
mm=$(printf '%s\n' "${m[@]}" | median)
printf 'lro %s: mdc-scontrol update until shown %.3f s, %.0f ms beyond the delay (rounds: %s)\n' \
	"$delay" "$mm" "$(awk -v a="$mm" -v d="$delay" 'BEGIN { print (a - d) * 1000 }')" "${m[*]}"
printf 'ratio managed/(delay + 0.15 s) (lro %s): %.2f (goal <= 1)\n' "$delay" \
	"$(awk -v a="$mm" -v d="$delay" 'BEGIN { print a / (d + 0.15) }')"
