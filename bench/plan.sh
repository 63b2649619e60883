#!/usr/bin/env bash
# bench/plan.sh - a plan costs about what a parse costs, in one run.
#
# On the emulator, a cluster with one partition; slurm.conf files that add
# VALID (250), SMALL (500) and LARGE (8000) partitions.  Times `mdcctl plan
# --base` of each file against `mdcctl conf check` of the same file, and
# the plan with Slurm's verdict skipped (MDC_LIBSLURMFULL= : our own checks
# only) to show what the libslurmfull child costs.  The service keeps at
# most 256 partitions, so the plans of SMALL and LARGE are refused by its
# rule after the whole plan is built (parse, translate, apply every op,
# validate), and only VALID gets Slurm's verdict.  Prints plan/check at
# LARGE (target <= 3) and the growth of the plan time SMALL -> LARGE
# (linear: about LARGE/SMALL; quadratic: its square).  Best of N runs.
#
#   bench/plan.sh [BUILD_DIR] [N]       (default: build, 3)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-3}
VALID=${VALID:-250}
SMALL=${SMALL:-500}
LARGE=${LARGE:-8000}
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
op=$(curl -sS -X POST -H 'Content-Type: application/json' \
	"$url/v1beta1/$parent/modelDevelopmentClusters?model_development_cluster_id=bench" \
	-d '{"node_pools":[{"id":"cpu","machine_spec":{"machine_type":"n2-standard-8"},"scaling_spec":{"min_node_count":1,"max_node_count":4}},
	     {"id":"login","machine_spec":{"machine_type":"n2-standard-8"},"scaling_spec":{"min_node_count":1,"max_node_count":1}}],
	     "orchestrator_spec":{"slurm_spec":{"login_node_pool_id":"login","partitions":[{"id":"cpu","node_pool_ids":["cpu"]}],
	     "default_partition_id":"cpu"}}}' | jq -r .name)
while [ "$(curl -sS "$url/v1/$op" | jq -r .done)" != true ]; do sleep 0.05; done

export MDC_ENDPOINT=$url MDC_CLUSTER=$name MDC_LOCK_DIR=$dir MDC_CONF=$dir/mdc.conf
: >"$MDC_CONF"
unset MDC_ACCESS_TOKEN
cat >"$dir/base.conf" <<BASE
ClusterName=bench
SlurmctldHost=ctl(127.0.0.1)
AuthType=auth/munge
NodeName=cpu-[0-3] CPUs=8 RealMemory=30000 State=CLOUD
NodeSet=cpu Nodes=cpu-[0-3]
BASE
"$build/mdcctl" render --base "$dir/base.conf" >"$dir/render.conf"
gen() {
	cp "$dir/render.conf" "$dir/p$1.conf"
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++)
		printf "PartitionName=n%05d Nodes=cpu MaxTime=%d State=UP\n", i, i % 600 + 10 }' \
		>>"$dir/p$1.conf"
}
for s in "$VALID" "$SMALL" "$LARGE"; do gen "$s"; done
# sanity: the file parses, the plan creates every partition and Slurm judged it
"$build/mdcctl" conf check "$dir/p$LARGE.conf" >/dev/null
got=$("$build/mdcctl" --format json plan --base "$dir/base.conf" "$dir/p$VALID.conf" |
	jq -r '"\(.payload.orchestrator_spec.slurm_spec.partitions | length) \(.slurm_verdict)"')
case $got in
"$((VALID + 1)) checks: ours, Slurm's"*) ;;
*) echo "bench: plan of $VALID partitions gave: $got" >&2; exit 1 ;;
esac
got=$("$build/mdcctl" plan --base "$dir/base.conf" "$dir/p$LARGE.conf" 2>&1 || true)
[[ $got == *"at most 256"* ]] ||
	{ echo "bench: the plan of $LARGE partitions is not refused by the service's limit" >&2; exit 1; }

now() { date +%s.%N; }
# best of N wall-clock runs of "$@" (a refused plan exits 1: timed all the same)
best() {
	local b="" t0 t1 i
	for ((i = 0; i < n; i++)); do
		t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
		b=$(awk -v a="$t0" -v c="$t1" -v b="$b" 'BEGIN { d = c - a; print (b == "" || d < b) ? d : b }')
	done
	echo "$b"
}
declare -A check checkns plan noslurm
for s in "$VALID" "$SMALL" "$LARGE"; do
	f=$dir/p$s.conf
	check[$s]=$(best "$build/mdcctl" conf check "$f")
	checkns[$s]=$(MDC_LIBSLURMFULL= best "$build/mdcctl" conf check "$f")
	plan[$s]=$(best "$build/mdcctl" plan --base "$dir/base.conf" "$f")
	noslurm[$s]=$(MDC_LIBSLURMFULL= best "$build/mdcctl" plan --base "$dir/base.conf" "$f")
done
row() { printf '%s %s %s %s %s\n' "$1" "${check[$1]}" "${checkns[$1]}" "${plan[$1]}" "${noslurm[$1]}"; }
{ row "$VALID"; row "$SMALL"; row "$LARGE"; } | awk -v v="$VALID" -v s="$SMALL" -v l="$LARGE" '
{ n[NR] = $1; c[NR] = $2; cn[NR] = $3; p[NR] = $4; pn[NR] = $5 }
END {
	note[1] = "valid: Slurm judges the result"; note[2] = note[3] = "refused: over the 256 partitions the service keeps"
	printf "%10s %11s %11s %11s %11s\n", "partitions", "conf check", "(no Slurm)", "plan", "(no Slurm)"
	for (i = 1; i <= 3; i++)
		printf "%10d %9.3f s %9.3f s %9.3f s %9.3f s  %s\n", n[i], c[i], cn[i], p[i], pn[i], note[i]
	printf "the libslurmfull child at %d partitions: %.3f s of the plan (%.0f%%), %.3f s of conf check (%.0f%%)\n",
		v, p[1] - pn[1], 100 * (p[1] - pn[1]) / p[1], c[1] - cn[1], 100 * (c[1] - cn[1]) / c[1]
	printf "ratio plan/check at %d: %.2f (target <= 3)\n", l, p[3] / c[3]
	printf "ratio plan/check at %d, Slurm skipped in both: %.2f\n", l, pn[3] / cn[3]
	printf "ratio plan growth %d -> %d: %.1f (linear %.1f)\n", s, l, p[3] / p[2], l / s
	printf "ratio plan with/without the Slurm child at %d: %.2f\n", v, p[1] / pn[1]
}'
