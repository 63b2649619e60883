#!/usr/bin/env bash
# The curl commands of the service's cluster-management guide, read from
# the external material (MDC_SHARED, README.md "Tests"; skipped without
# it) and run as written against the emulator: only the host and the
# placeholders are replaced.  The guide's gcurl alias too, with a `gcloud`
# that prints the emulator's token.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

SEED=${MDC_SHARED:-$top_srcdir/../shared}/seeds/manage-cluster.pt.txt
[ -r "$SEED" ] || skip_all "seed document not found: $SEED"
plan 21

emu_up --token seed-token
EMU_AUTH="Authorization: Bearer seed-token"
cd "$TEST_DIR" || exit 1

# the seed's commands, continuation lines joined
mapfile -t CMDS < <(awk '/^ *gcurl|^alias gcurl/ {line=$0; while (line ~ /\\$/) { sub(/\\$/, "", line); getline nxt; line = line nxt } print line}' "$SEED")
is "${#CMDS[@]}" 7 "seed: the alias and six gcurl commands"

# placeholders -> this test's values
PROJECT_ID=proj REGION=us-central1 CLUSTER_ID=seed1 OPERATION_ID=
subst() {
	sed -e "s|https://REGION-aiplatform.googleapis.com|$EMU_URL|g" \
	    -e "s|PROJECT_ID|$PROJECT_ID|g; s|CLUSTER_ID|$CLUSTER_ID|g; s|REGION|$REGION|g" \
	    -e "s|OPERATION_ID|${OPERATION_ID:-none}|g; s|DISPLAY_NAME|seed cluster|g" \
	    -e "s|SUBNETWORK|default|g; s|NETWORK|default|g; s|ZONE|us-central1-a|g; s|FILESTORE|home|g" \
	    -e "s|UPDATED_MIN_NODE_COUNT|${MIN:-1}|g; s|UPDATED_MAX_NODE_COUNT|${MAX:-4}|g"
}
gcloud() { echo seed-token; }
shopt -s expand_aliases
eval "${CMDS[0]}"

# the CPU-only payload: from the first "{" line to the first "}" line
sed -n '/^{$/,/^}$/p' "$SEED" | sed '/^}$/q' >seed-payload.in
MIN=1 MAX=2 subst <seed-payload.in >create.json
ok "seed payload is valid JSON" jq -e . create.json
emu_create_cluster "$CLUSTER_ID" create.json >/dev/null
is "$(curl -s -H "$EMU_AUTH" "$EMU_CLUSTERS/$CLUSTER_ID" | jq -r .state)" RUNNING "cluster created from the seed payload"

run() {	# run seed command N: its output in OUT, the operation id in OPERATION_ID
	local cmd
	cmd=$(subst <<<"${CMDS[$1]}")
	echo "# $cmd" >>commands.log
	OUT=$(eval "$cmd" 2>>curl.err)
	local name
	name=$(jq -r '.name // empty' <<<"$OUT" 2>/dev/null)
	case $name in */operations/*) OPERATION_ID=${name##*/}; emu_wait_op "$name" >/dev/null ;; esac
}

# 1: PATCH without updateMask, UPDATE_PAYLOAD = the CPU-only payload with new counts
MIN=2 MAX=6 subst <seed-payload.in >UPDATE_PAYLOAD
run 1
like "$(jq -r .name <<<"$OUT")" "^projects/[0-9]{12}/locations/us-central1/operations/[0-9]+$" "seed PATCH (no mask) returns an operation"
got=$(curl -s -H "$EMU_AUTH" "$EMU_CLUSTERS/$CLUSTER_ID")
is "$(jq -c '[.nodePools[0].scalingSpec.minNodeCount, .nodePools[0].scalingSpec.maxNodeCount]' <<<"$got")" '[2,6]' \
	"seed PATCH (no mask): node counts updated"
is "$(jq -r '.orchestratorSpec.slurmSpec.partitions[0].id' <<<"$got")" cpu "... partitions kept as sent"

# 2: partitions + node_pools, USER_AND_SERVICE
jq '.orchestrator_spec.slurm_spec.partitions += [{"id":"big","node_pool_ids":["cpu"]}] | .node_pools[0].scaling_spec.max_node_count = 8' \
	UPDATE_PAYLOAD >update-payload.json
run 2
is "$(jq -r .metadata.progressMessage <<<"$OUT" | grep -c .)" 1 "seed PATCH partitions,node_pools returns an operation"
got=$(curl -s -H "$EMU_AUTH" "$EMU_CLUSTERS/$CLUSTER_ID")
is "$(jq -c '[.orchestratorSpec.slurmSpec.partitions[].id]' <<<"$got")" '["cpu","big"]' "... partitions replaced"
is "$(jq -r '.nodePools[0].scalingSpec.maxNodeCount' <<<"$got")" 8 "... node_pools replaced"
is "$(jq -r '.nodePools[0].nodeImage' <<<"$got")" mdc-image-2026-10 "... USER_AND_SERVICE resolved the default image"
req=$(grep '"method":"PATCH"' "$EMU_LOG" | tail -1)
is "$(jq -c '[.query.updateMask, .query.updateMode]' <<<"$req")" \
	'["orchestrator_spec.slurm_spec.partitions,node_pools","USER_AND_SERVICE"]' "... the request carried the seed's mask and mode"

# 3: the preemption config, USER_ONLY
{
	echo '{"orchestrator_spec":{"slurm_spec":{'
	sed -n '/"config": {/,/}/p' "$SEED"
	echo '}}}'
} >update-payload.json
ok "seed config payload is valid JSON" jq -e . update-payload.json
run 3
got=$(curl -s -H "$EMU_AUTH" "$EMU_CLUSTERS/$CLUSTER_ID")
is "$(jq -c .orchestratorSpec.slurmSpec.config <<<"$got")" \
	'{"PriorityType":"priority/multifactor","PriorityWeightAge":"1000","PreemptType":"preempt/partition_prio","PreemptMode":"REQUEUE","PreemptExemptTime":"1:01","SchedulerParameters":"bf_continue,bf_window=1440"}' \
	"seed config PATCH (USER_ONLY) sets the preemption config"
is "$(jq -c '[.orchestratorSpec.slurmSpec.partitions[].id]' <<<"$got")" '["cpu","big"]' "... partitions untouched"

# 4: the operations GET
run 4
is "$(jq -r .done <<<"$OUT")" true "seed operations GET: done"
like "$(jq -r .name <<<"$OUT")" "^projects/[0-9]{12}/locations/us-central1/operations/$OPERATION_ID$" "... names the operation with the project number, as the service does"
is "$(jq -r .response.orchestratorSpec.slurmSpec.config.PreemptMode <<<"$OUT")" REQUEUE "... its response is the updated cluster"

# 5: the DELETE, 6: its operation
run 5
like "$(jq -r .metadata.\"@type\" <<<"$OUT")" "DeleteOperationMetadata$" "seed DELETE returns an operation"
run 6
is "$(jq -r .done <<<"$OUT")" true "seed operations GET after DELETE: done"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "$EMU_AUTH" "$EMU_CLUSTERS/$CLUSTER_ID")
is "$code" 404 "the cluster is gone"
is "$(grep -c '"method":"PATCH"' "$EMU_LOG") $(grep -c '"method":"DELETE"' "$EMU_LOG")" "3 1" \
	"the seed's gcurl alias authenticated every command (the emulator requires the token)"
