#!/usr/bin/env bash
# No lost update: 20 concurrent `mdcctl partition update` runs on 20 different
# partitions all land: each writer takes the lock, re-reads and re-plans
# on the fresh state, so nobody's PATCH carries a stale partition list.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 6
EMU_LRO_SECONDS=0.1 emu_up
# a cluster with partitions p1..p20
emu_standard_cluster | jq '.orchestrator_spec.slurm_spec.partitions = [range(1; 21) | {id: "p\(.)", node_pool_ids: ["cpu"]}] | .orchestrator_spec.slurm_spec.default_partition_id = "p1"' \
	>"$TEST_DIR/c20.json"
emu_create_cluster c1 "$TEST_DIR/c20.json" >/dev/null || skip_all "cannot create the test cluster"
export MDC_ENDPOINT=$EMU_URL MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR/locks
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
mkdir -p "$MDC_LOCK_DIR"
: >"$EMU_LOG"

pids=()
for i in $(seq 1 20); do
	"$top_builddir/mdcctl" partition update "p$i" "MaxTime=$((i * 10))" \
		>"$TEST_DIR/out$i" 2>&1 &
	pids+=($!)
done
at_exit "kill ${pids[*]}"
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
is "$failed" 0 "all 20 concurrent updates exit 0"
[ "$failed" = 0 ] || diag "$(cat "$TEST_DIR"/out*)"

got=$("$top_builddir/mdcctl" --format json partition list | jq -r '.[] | "\(.id)=\(.config.MaxTime // "-")"' | sort -V)
want=$(for i in $(seq 1 20); do echo "p$i=$((i * 10))"; done)
is "$got" "$want" "all 20 changes are present at the end"
is "$(jq -r 'select(.method == "PATCH") | .method' "$EMU_LOG" | wc -l | tr -d ' ')" 20 "exactly 20 PATCHes, none resent"
is "$(jq -r 'select(.method == "PATCH") | .query.updateMask' "$EMU_LOG" | sort -u)" \
	"orchestrator_spec.slurm_spec.partitions" "each PATCH masks only the partitions"
# each PATCH carries one more configured partition than the one before:
# proof that every writer planned on the state its predecessor left
is "$(jq -r 'select(.method == "PATCH") | [.body.orchestrator_spec.slurm_spec.partitions[] | select(.config.MaxTime)] | length' "$EMU_LOG" | tr '\n' ' ')" \
	"$(seq 1 20 | tr '\n' ' ')" "every PATCH was planned on the fresh state"
like "$(ls "$MDC_LOCK_DIR")" '^mdc-c1-[0-9a-f]{16}\.lock$' \
	"the writers shared one lock file in MDC_LOCK_DIR"
