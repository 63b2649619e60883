#!/usr/bin/env bash
# A cluster PATCH takes the list elements it sends back unchanged from the
# stored cluster instead of parsing them again (mdc_json_parse_reusing).
# Differential: the same PATCHes go to an emulator without a request log
# (the body is parsed only under the lock, against the cluster) and to one
# with it (parsed first for the log, then again), and to a cluster whose
# elements are all new text; every answer and every cluster must agree,
# also after a kill -9 and a restart.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 12
SS=orchestrator_spec.slurm_spec
parts=$(jq -cn '[range(50) | {id: "p\(.)", node_pool_ids: ["cpu"], config: {MaxTime: "60"}}]')
cluster=$(jq -c --argjson p "$parts" '.orchestrator_spec.slurm_spec.partitions = $p
	| .orchestrator_spec.slurm_spec.default_partition_id = "p0"' <<<"$(emu_standard_cluster)")

EMU_LRO_SECONDS=0 EMU_NO_REQUEST_LOG=1 emu_up
nolog_url=$EMU_CLUSTERS nolog_pid=$EMU_PID nolog_dir=$EMU_DIR
EMU_LRO_SECONDS=0 emu_up
log_url=$EMU_CLUSTERS
printf '%s' "$cluster" >"$TEST_DIR/cluster.json"
# (each emulator's operations polled at that emulator: EMU_URL)
for u in "$nolog_url" "$log_url"; do
	EMU_URL=${u%%/v1beta1/*} EMU_CLUSTERS=$u emu_create_cluster c1 "$TEST_DIR/cluster.json" >/dev/null ||
		fail "create c1 at $u"
done
[ ! -e "$nolog_dir/requests.log" ] || fail "the first emulator has no request log"

# send QUERY BODY: the PATCH to both; prints "CODE MESSAGE" of each and
# waits for the operations
send() {
	local u out code op
	for u in "$nolog_url" "$log_url"; do
		out=$(curl -sS -w '\n%{http_code}' -X PATCH -H 'Content-Type: application/json' \
			--data-binary "$2" "$u/c1?$1")
		code=${out##*$'\n'}
		out=${out%$'\n'*}
		if [ "$code" = 200 ]; then
			op=$(jq -r .name <<<"$out")
			EMU_URL=${u%%/v1beta1/*} emu_wait_op "$op" | jq -r '"\(.done) \(.error.message // "")"' | sed "s/^/$code /"
		else
			printf '%s %s\n' "$code" "$(jq -r .error.message <<<"$out")"
		fi
	done
}
same() {	# same NAME: both emulators answer GET alike (times and the VM ids and hosts drawn from them aside)
	local a b
	a=$(curl -sS "$nolog_url/c1" | jq -S 'del(.updateTime, .createTime, .clusterEvents, .clusterStatus.nodesStatus[]?.createTime, .clusterStatus.nodesStatus[]?.lastUpdateTime, .clusterStatus.nodesStatus[]?.instanceId, .clusterStatus.nodesStatus[]?.physicalHost)')
	b=$(curl -sS "$log_url/c1" | jq -S 'del(.updateTime, .createTime, .clusterEvents, .clusterStatus.nodesStatus[]?.createTime, .clusterStatus.nodesStatus[]?.lastUpdateTime, .clusterStatus.nodesStatus[]?.instanceId, .clusterStatus.nodesStatus[]?.physicalHost)')
	is "$a" "$b" "$1"
}
mask="updateMask=$SS.partitions"
body() { jq -c '{orchestrator_spec: {slurm_spec: {partitions: .}}}' <<<"$1"; }

out=$(send "$mask" "$(body "$(jq -c '.[3].config.MaxTime = "61"' <<<"$parts")")")
is "$(sort -u <<<"$out")" "200 true " "one partition of 50 changed, the others sent back: both accept"
is "$(curl -sS "$nolog_url/c1" | jq -c '[.orchestratorSpec.slurmSpec.partitions[2,3,4].config.MaxTime]')" \
	'["60","61","60"]' "... and the change is the one made"
same "... both clusters alike"

# camelCase elements, other spacing, a repeated key on the way (json-c
# keeps the last), invalid JSON, an unknown cluster
out=$(send "$mask" "$(jq -c '{orchestratorSpec: {slurmSpec: {partitions: [.[] | {id, nodePoolIds: .node_pool_ids, config}]}}}' <<<"$parts")")
is "$(sort -u <<<"$out")" "200 true " "camelCase elements: both accept"
same "... both clusters alike, the change undone"
out=$(send "$mask" "$(jq '{orchestrator_spec: {slurm_spec: {partitions: .}}}' <<<"$parts" |
	sed 's/"orchestrator_spec"/"orchestrator_spec": {}, "orchestrator_spec"/')")
is "$(sort -u <<<"$out" | wc -l)" 1 "a repeated key on the way: the same answer from both ($(head -1 <<<"$out"))"
out=$(send "$mask" "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":$parts,\"partitions\":[$(jq -c '.[1]' <<<"$parts")]}}}")
is "$(sort -u <<<"$out")" "400 List of found errors:	1.Field: model_development_cluster.orchestrator_spec.slurm_spec.partitions; Message: the update removes or renames partition 'p0', the default partition: set default_partition_id to another partition first	" \
	"... where the last list drops the default partition: refused by both"
out=$(send "$mask" "$(body "$parts" | sed 's/]}}}$/,]}}}/')")
like "$(sort -u <<<"$out")" "^400 invalid JSON payload received" "invalid JSON: 400 from both"
out=$(curl -sS -w '\n%{http_code}' -X PATCH --data-binary '{"labels":' "$nolog_url/nosuch?updateMask=labels")
like "${out##*$'\n'} $(jq -r .error.message <<<"${out%$'\n'*}")" "^400 invalid JSON payload received" \
	"invalid JSON to an unknown cluster: still 400 invalid JSON"
same "nothing refused changed either cluster"

# the kept elements are rebuilt after a kill -9
out=$(send "$mask" "$(body "$(jq -c 'del(.[10]) | .[20].config.MaxTime = "5"' <<<"$parts")")")
want=$(curl -sS "$nolog_url/c1" | jq -S .)
kill -9 "$nolog_pid"; wait "$nolog_pid" 2>/dev/null
EMU_DIR_NEXT=$nolog_dir EMU_LRO_SECONDS=0 EMU_NO_REQUEST_LOG=1 emu_start || fail "restart"
nolog_url=$EMU_CLUSTERS
is "$(curl -sS "$nolog_url/c1" | jq -S .)" "$want" "after a kill -9 the cluster is as answered"
same "... and alike the other one's"
