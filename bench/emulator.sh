#!/usr/bin/env bash
# bench/emulator.sh - the emulator's cost per request stays flat, in one run.
#
# 1. PATCH throughput after 10,000 operations against the first 100: one
#    emulator is aged with AGE label PATCHes (each one an operation, --state
#    on, lro 0), and windows of W PATCHes on it alternate with windows of W
#    on fresh emulators (their first operations).  Medians of R rounds.
#    Target: ratio >= 0.8.
# 2. The emulator's CPU (/proc, all threads; cpu_ns) per partition-update
#    PATCH (updateMask=orchestrator_spec.slurm_spec.partitions, the whole
#    list, one partition's MaxTime changed) on a cluster with 200 partitions
#    against one with 2.  Target: ratio <= 3.
#
#   bench/emulator.sh [BUILD_DIR] [AGE] [W] [R]   (default: build 10000 100 3)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
age=${2:-10000}
win=${3:-100}
rounds=${4:-3}
[ -x "$build/mdc-emulator" ] || { echo "bench: build first ($build/mdc-emulator missing)" >&2; exit 1; }
command -v jq >/dev/null && command -v curl >/dev/null || { echo "bench: needs curl and jq" >&2; exit 1; }

dir=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT
parent=projects/bench/locations/us-central1
coll=$parent/modelDevelopmentClusters

# start NAME: an emulator with its state in $dir/NAME; sets URL and PID
start() {
	mkdir -p "$dir/$1"
	"$build/mdc-emulator" --listen 127.0.0.1:0 --state "$dir/$1/state.json" --lro-seconds 0 \
		>"$dir/$1/out" 2>"$dir/$1/err" &
	PID=$!
	pids+=("$PID")
	URL=
	for _ in $(seq 100); do
		URL=$(sed -n 's/^ready //p' "$dir/$1/out")
		[ -n "$URL" ] && break
		sleep 0.1
	done
	[ -n "$URL" ] || { cat "$dir/$1/err" >&2; exit 1; }
}

# cluster URL NPARTS: create cluster "bench" with NPARTS partitions, wait
cluster() {
	local url=$1 n=$2 op parts
	parts=$(jq -cn --argjson n "$n" '[range($n) | {id: "p\(.)", node_pool_ids: ["cpu"],
		config: {MaxTime: "60"}}]')
	op=$(curl -sS -X POST -H 'Content-Type: application/json' \
		"$url/v1beta1/$coll?model_development_cluster_id=bench" -d "$(jq -cn --argjson p "$parts" '{
		node_pools: [{id: "cpu", machine_spec: {machine_type: "n2-standard-8"},
			      scaling_spec: {min_node_count: 1, max_node_count: 4}},
			     {id: "login", machine_spec: {machine_type: "n2-standard-8"},
			      scaling_spec: {min_node_count: 1, max_node_count: 1}}],
		orchestrator_spec: {slurm_spec: {login_node_pool_id: "login", partitions: $p,
			default_partition_id: "p0"}}}')" | jq -r .name)
	while [ "$(curl -sS "$url/v1/$op" | jq -r .done)" != true ]; do sleep 0.05; done
}

# patches URL FROM COUNT: COUNT label PATCHes over one connection (curl -K);
# fails unless every one was accepted (lro 0: each finishes before the next)
patches() {
	local url=$1 from=$2 count=$3 cfg=$dir/cfg.$RANDOM i
	for ((i = from; i < from + count; i++)); do
		[ "$i" = "$from" ] || echo next
		printf 'url = "%s/v1beta1/%s/bench?updateMask=labels"\nrequest = "PATCH"\n' "$url" "$coll"
		printf 'header = "Content-Type: application/json"\ndata = "{\\"labels\\":{\\"n\\":\\"%d\\"}}"\n' "$i"
		printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n'
	done >"$cfg"
	curl -sS -K "$cfg" >"$cfg.codes"
	if grep -qv '^200$' "$cfg.codes"; then
		echo "bench: a PATCH was refused: $(sort "$cfg.codes" | uniq -c | tr '\n' ' ')" >&2
		exit 1
	fi
	rm -f "$cfg" "$cfg.codes"
}

now() { date +%s.%N; }
# rate URL FROM: PATCHes per second over one window
rate() {
	local t0 t1
	t0=$(now)
	patches "$1" "$2" "$win"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" -v n="$win" 'BEGIN { printf "%.1f\n", n / (b - a) }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# cpu_ns PID: the process's CPU time in ns, summed over its threads:
# se.sum_exec_runtime (ms, to the ns) of /proc/PID/task/*/sched, else
# utime + stime (10 ms ticks: use MDC_BENCH_PATCHES=2000 or more there)
cpu_ns() {
	local t
	t=$(cat /proc/"$1"/task/*/sched 2>/dev/null |
		awk '/^se\.sum_exec_runtime/ { s += $3 } END { printf "%.0f\n", s * 1e6 }')
	if [ -n "$t" ] && [ "$t" != 0 ]; then
		echo "$t"
	else
		awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f\n", ($14 + $15) * 1e9 / hz }' "/proc/$1/stat"
	fi
}

# --- 1. throughput after AGE operations (AGE 0 skips it) -----------------------
[ "$age" -gt 0 ] && {
start aged
aged_url=$URL aged_pid=$PID
cluster "$aged_url" 2
t0=$(now)
patches "$aged_url" 0 "$age"
t1=$(now)
fresh=() old=()
for ((r = 0; r < rounds; r++)); do
	start "fresh$r"
	cluster "$URL" 2
	fresh+=("$(rate "$URL" 0)")
	kill "$PID"; wait "$PID" 2>/dev/null || true
	old+=("$(rate "$aged_url" $((age + r * win)))")
done
f=$(printf '%s\n' "${fresh[@]}" | median)
o=$(printf '%s\n' "${old[@]}" | median)
ops=$(curl -sS "$aged_url/v1/$parent/operations" | jq '.operations | length')
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$aged_pid/status")
printf 'aging: %d PATCHes in %.1f s; operations kept: %s; emulator RSS %s KB; state %s KB + journal %s KB\n' \
	"$age" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$ops" "$rss" \
	"$(( $(stat -c %s "$dir/aged/state.json") / 1024 ))" \
	"$(( $(stat -c %s "$dir/aged/state.json.journal") / 1024 ))"
printf 'PATCH/s, first %d operations (fresh): %s (rounds: %s)\n' "$win" "$f" "${fresh[*]}"
printf 'PATCH/s, after %d operations: %s (rounds: %s)\n' "$age" "$o" "${old[*]}"
printf 'ratio after/first: %.2f (target >= 0.8)\n' "$(awk -v a="$o" -v b="$f" 'BEGIN { print a / b }')"
}

# --- 2. CPU per partition-update PATCH, 200 partitions against 2 -------------
# ppatches URL NPARTS COUNT: COUNT PATCHes of the whole partition list
ppatches() {
	local url=$1 n=$2 count=$3 cfg=$dir/pcfg.$RANDOM c0 c1
	jq -rn --argjson n "$n" --argjson count "$count" --arg u \
		"$url/v1beta1/$coll/bench?updateMask=orchestrator_spec.slurm_spec.partitions" '
		range($count) as $i
		| (if $i > 0 then "next\n" else "" end)
		+ "url = \"\($u)\"\nrequest = \"PATCH\"\nheader = \"Content-Type: application/json\"\n"
		+ "output = \"/dev/null\"\nwrite-out = \"%{http_code}\\n\"\ndata = "
		+ ({orchestrator_spec: {slurm_spec: {partitions: [range($n) | {id: "p\(.)",
			node_pool_ids: ["cpu"], config: {MaxTime: (if . == 0 then "\(61 + $i)"
			else "60" end)}}]}}} | tojson | tojson)' >"$cfg"
	c0=$(cpu_ns "$PID")
	curl -sS -K "$cfg" >"$cfg.codes"
	c1=$(cpu_ns "$PID")
	if grep -qv '^200$' "$cfg.codes"; then
		echo "bench: a partition PATCH was refused: $(sort "$cfg.codes" | uniq -c | tr '\n' ' ')" >&2
		exit 1
	fi
	echo $((c1 - c0))
}
np=${MDC_BENCH_PATCHES:-200}
start p2
cluster "$URL" 2
small=$(ppatches "$URL" 2 "$np")
start p200
cluster "$URL" 200
big=$(ppatches "$URL" 200 "$np")
printf 'emulator CPU per partition PATCH: 2 partitions %.2f ms, 200 partitions %.2f ms (%d PATCHes each)\n' \
	"$(awk -v t="$small" -v n="$np" 'BEGIN { print t / 1e6 / n }')" \
	"$(awk -v t="$big" -v n="$np" 'BEGIN { print t / 1e6 / n }')" "$np"
printf 'ratio 200/2 partitions: %.2f (target <= 3)\n' \
	"$(awk -v a="$big" -v b="$small" 'BEGIN { print (b > 0 ? a / b : 0) }')"
