#!/usr/bin/env bash
# bench/client.sh - what the safe write costs, in one run on the emulator.
#
# 1. N times `mdcctl config set PriorityWeightAge=I` (writer lock, fresh
#    GET, plan, PATCH with mask and mode, LRO wait) against N bare curl
#    PATCHes of the same map followed by the same operation poll.  Prints
#    both and the ratio: the overhead of doing it right, not an absolute
#    speed.
# 2. P1: N times `mdcctl describe` against N bare `curl` GETs of the same
#    cluster, interleaved, on the small cluster above and on one of 64 node
#    pools (the service's limit, MDC_RULES_MAX_POOLS; the issue's 100 pools
#    are refused) and 200 partitions.  Goal: ratio <= 1.25 on both.
#
#   bench/client.sh [BUILD_DIR] [N]     (default: build, 20)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-20}
for p in mdcctl mdc-emulator; do
	[ -x "$build/$p" ] || { echo "bench: build first ($build/$p missing)" >&2; exit 1; }
done
command -v jq >/dev/null && command -v curl >/dev/null || { echo "bench: needs curl and jq" >&2; exit 1; }

dir=$(mktemp -d)
"$build/mdc-emulator" --listen 127.0.0.1:0 --state "$dir/state.json" --lro-seconds 0 \
	>"$dir/out" 2>"$dir/err" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do url=$(sed -n 's/^ready //p' "$dir/out"); [ -n "$url" ] && break; sleep 0.1; done
[ -n "$url" ] || { cat "$dir/err" >&2; exit 1; }

parent=projects/bench/locations/us-central1
name=$parent/modelDevelopmentClusters/bench
wait_op() {
	local op=$1
	while [ "$(curl -sS "$url/v1/$op" | jq -r .done)" != true ]; do sleep 0.05; done
}
op=$(curl -sS -X POST -H 'Content-Type: application/json' \
	"$url/v1beta1/$parent/modelDevelopmentClusters?model_development_cluster_id=bench" \
	-d '{"network":{"network":"projects/bench/global/networks/default"},"node_pools":[{"id":"cpu","machine_spec":{"machine_type":"n2-standard-8"},"scaling_spec":{"min_node_count":1,"max_node_count":4}},
	     {"id":"login","machine_spec":{"machine_type":"n2-standard-8"},"scaling_spec":{"min_node_count":1,"max_node_count":1}}],
	     "orchestrator_spec":{"slurm_spec":{"login_node_pool_id":"login",
	     "home_directory_storage":"projects/bench/locations/us-central1-a/instances/home","partitions":[{"id":"cpu","node_pool_ids":["cpu"]}],
	     "default_partition_id":"cpu"}}}' | jq -r .name)
[ "$op" != null ] || { echo "bench: creating the small cluster failed" >&2; exit 1; }
wait_op "$op"

export MDC_ENDPOINT=$url MDC_CLUSTER=$name MDC_LOCK_DIR=$dir
now() { date +%s.%N; }
t0=$(now)
for ((i = 0; i < n; i++)); do
	"$build/mdcctl" --yes config set "PriorityWeightAge=$i" >/dev/null
done
t1=$(now)
for ((i = 0; i < n; i++)); do
	op=$(curl -sS -X PATCH -H 'Content-Type: application/json' \
		"$url/v1beta1/$name?updateMask=orchestrator_spec.slurm_spec.config&updateMode=USER_ONLY" \
		-d "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"PriorityWeightAge\":\"$i\"}}}}" | jq -r .name)
	wait_op "$op"
done
t2=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$n" 'BEGIN {
	safe = b - a; raw = c - b
	printf "%d updates each\n", n
	printf "mdcctl config set (lock, GET, plan, PATCH, wait): %.3f s, %.1f ms/update\n", safe, safe * 1000 / n
	printf "curl PATCH + poll: %.3f s, %.1f ms/update\n", raw, raw * 1000 / n
	printf "ratio safe/raw: %.2f\n", safe / raw
}'

# --- 2. P1: describe against a bare GET ---------------------------------------------
# reads NAME: N interleaved pairs; prints the two medians (seconds)
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.6f\n", b - a }'; }
reads() {
	local cl=$1 t0 i d=() g=()
	for ((i = 0; i < n; i++)); do
		t0=$(now)
		MDC_CLUSTER=$cl "$build/mdcctl" describe >/dev/null
		d+=("$(since "$t0")")
		t0=$(now)
		curl -sS -o /dev/null "$url/v1beta1/$cl"
		g+=("$(since "$t0")")
	done
	echo "$(printf '%s\n' "${d[@]}" | median) $(printf '%s\n' "${g[@]}" | median)"
}
big=$parent/modelDevelopmentClusters/big
op=$(curl -sS -X POST -H 'Content-Type: application/json' \
	"$url/v1beta1/$parent/modelDevelopmentClusters?model_development_cluster_id=big" -d "$(jq -cn '{
	network: {network: "projects/bench/global/networks/default"},
	node_pools: ([range(63) | {id: "pool\(.)", machine_spec: {machine_type: "n2-standard-8"},
		scaling_spec: {min_node_count: 1, max_node_count: 4}}]
		+ [{id: "login", machine_spec: {machine_type: "n2-standard-8"},
		    scaling_spec: {min_node_count: 1, max_node_count: 1}}]),
	orchestrator_spec: {slurm_spec: {login_node_pool_id: "login",
		home_directory_storage: "projects/bench/locations/us-central1-a/instances/home",
		partitions: [range(200) | {id: "p\(.)", node_pool_ids: ["pool\(. % 63)"],
			config: {MaxTime: "60", PriorityTier: "\(. % 7 + 1)"}}],
		default_partition_id: "p0"}}}')" | jq -r .name)
[ "$op" != null ] || { echo "bench: creating the 64-pool cluster failed" >&2; exit 1; }
wait_op "$op"
read -r ds gs < <(reads "$name")
read -r db gb < <(reads "$big")
printf 'describe, small cluster: mdcctl %.1f ms, curl GET %.1f ms (medians of %d)\n' \
	"$(awk -v x="$ds" 'BEGIN { print x * 1000 }')" "$(awk -v x="$gs" 'BEGIN { print x * 1000 }')" "$n"
printf 'describe, 64 pools + 200 partitions (%s KB): mdcctl %.1f ms, curl GET %.1f ms\n' \
	"$(( $(curl -sS "$url/v1beta1/$big" | wc -c) / 1024 ))" \
	"$(awk -v x="$db" 'BEGIN { print x * 1000 }')" "$(awk -v x="$gb" 'BEGIN { print x * 1000 }')"
printf 'ratio describe/GET small: %.2f (goal <= 1.25)\n' "$(awk -v a="$ds" -v b="$gs" 'BEGIN { print a / b }')"
printf 'ratio describe/GET 64 pools 200 partitions: %.2f (goal <= 1.25)\n' \
	"$(awk -v a="$db" -v b="$gb" 'BEGIN { print a / b }')"
