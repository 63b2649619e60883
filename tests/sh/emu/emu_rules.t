#!/usr/bin/env bash
# Every rule of the managed API's contract (ids, required and immutable
# fields, update masks and modes, the one operation at a time, the
# refusals' words; mdc-emulator(8)) enforced by the running emulator,
# black-box over HTTP: status, error text and resulting resource.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

SS=orchestrator_spec.slurm_spec
emu_up
emu_create_cluster c1 >/dev/null || { fail "create c1"; exit 1; }

# patch ID QUERY JSON: PATCH, wait for the LRO when accepted; sets CODE and
# BODY (the error, or the finished operation)
patch() {
	CODE=$(curl -s -o "$TEST_DIR/resp" -w '%{http_code}' -X PATCH \
		-H 'Content-Type: application/json' --data-binary "$3" "$EMU_CLUSTERS/$1?$2")
	BODY=$(cat "$TEST_DIR/resp")
	if [ "$CODE" = 200 ]; then
		BODY=$(emu_wait_op "$(jq -r .name <<<"$BODY")")
	fi
}
get() { curl -s "$EMU_CLUSTERS/$1"; }
err() { jq -r '"\(.error.code) \(.error.status)"' <<<"$BODY"; }
# the service's validation message is "List of found errors:<TAB>1.Field: F;
# Message: M<TAB>": M, for the rules' wording (the form: emu_service.t)
msg() { jq -r .error.message <<<"$BODY" | sed -E 's/^List of found errors:\t1\.Field: [^;]*; Message: //; s/\t$//'; }

# --- C1 allowed mask paths -------------------------------------------------------
patch c1 "updateMask=network" '{"network":{"network":"projects/p/global/networks/x"}}'
is "$CODE $(err)" "400 400 INVALID_ARGUMENT" "C1: a mask path outside the list is INVALID_ARGUMENT"
like "$(msg)" "invalid update mask path 'network'" "C1: the message names the path"
is "$(jq -r '.error.details[] | select(."@type" | endswith("BadRequest")) | .fieldViolations[0].field' <<<"$BODY")" \
	update_mask "C1: BadRequest fieldViolation names update_mask"
is "$(get c1 | jq -r .network.network)" "projects/proj/global/networks/default" "C1: the cluster is unchanged"
patch c1 "updateMask=orchestratorSpec.slurmSpec.config" '{"orchestratorSpec":{"slurmSpec":{"config":{"PriorityWeightAge":"10"}}}}'
is "$CODE $(jq -r .response.orchestratorSpec.slurmSpec.config.PriorityWeightAge <<<"$BODY")" "200 10" \
	"C1: lowerCamelCase mask path and body accepted"
is "$(get c1 | jq -r .labels.team)" ml "C1: fields outside the mask are kept"

# --- C2 named but absent = cleared -----------------------------------------------
patch c1 "updateMask=labels,$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":"20"}}}}'
is "$CODE $(get c1 | jq -c .labels)" "200 null" "C2: labels named in the mask but absent are cleared"

# --- C3 no mask: whole-payload diff ------------------------------------------------
patch c1 "updateMask=labels" '{"labels":{"team":"ml","env":"dev"}}'
full=$(get c1 | jq 'del(.labels, .name, .state, .createTime, .updateTime)')
patch c1 "" "$full"
is "$CODE" 200 "C3: PATCH without updateMask accepted"
is "$(get c1 | jq -c '[.labels, .orchestratorSpec.slurmSpec.config.PriorityWeightAge]')" '[null,"20"]' \
	"C3: what the payload omits (labels) is cleared, what it carries stays"
patch c1 "" '{}'
like "$CODE $(msg)" "^400 the update leaves the cluster without node pools: a PATCH without updateMask clears what the payload omits" \
	"C3: an empty payload without a mask would clear everything: rejected"
noconf=$(get c1 | jq 'del(.orchestratorSpec.slurmSpec.config)')
patch c1 "" "$noconf"
is "$(get c1 | jq -c .orchestratorSpec.slurmSpec.config)" null "C3: omitted config is cleared too"

# --- C4 update modes -----------------------------------------------------------------
patch c1 "updateMask=labels&updateMode=SOMETIMES" '{"labels":{}}'
is "$CODE $(err)" "400 400 INVALID_ARGUMENT" "C4: unknown updateMode rejected"
like "$(msg)" "invalid updateMode 'SOMETIMES'" "C4: the message names the mode"
for m in UPDATE_MODE_UNSPECIFIED USER_ONLY USER_AND_SERVICE; do
	patch c1 "updateMask=labels&updateMode=$m" "{\"labels\":{\"mode\":\"$(tr A-Z a-z <<<$m)\"}}"
	is "$CODE $(get c1 | jq -r .labels.mode)" "200 $(tr A-Z a-z <<<$m)" "C4: updateMode=$m accepted"
done

# --- C5 full replacement of repeated fields -----------------------------------------------
pools=$(get c1 | jq -c '.nodePools')
three=$(jq -c '. + [{"id":"gpu","machine_spec":{"machine_type":"a3-highgpu-8g"},"scaling_spec":{"min_node_count":0,"max_node_count":2}}]' <<<"$pools")
patch c1 "updateMask=node_pools" "{\"node_pools\":$three}"
is "$(get c1 | jq -c '[.nodePools[].id]')" '["cpu","login","gpu"]' "C5: node_pools replaced by the complete list"
patch c1 "updateMask=node_pools" "{\"node_pools\":$(jq -c '[.[] | select(.id != "login")]' <<<"$pools")}"
is "$CODE" 400 "C5: a list without the login pool is rejected (login_node_pool_id names it)"
like "$(msg)" "login_node_pool_id 'login' names no node pool" "C5: ... with the reason"
patch c1 "updateMask=node_pools" "{\"node_pools\":$pools}"
is "$(get c1 | jq -c '[.nodePools[].id]')" '["cpu","login"]' "C5: an omitted pool is removed"
patch c1 "updateMask=$SS.prolog_bash_scripts" '{"orchestrator_spec":{"slurm_spec":{"prolog_bash_scripts":["echo a","echo b"]}}}'
patch c1 "updateMask=$SS.prolog_bash_scripts" '{"orchestrator_spec":{"slurm_spec":{"prolog_bash_scripts":["echo c"]}}}'
is "$(get c1 | jq -c .orchestratorSpec.slurmSpec.prologBashScripts)" '["echo c"]' "C5: prolog_bash_scripts replaced whole"
patch c1 "updateMask=$SS.epilog_bash_scripts" '{"orchestrator_spec":{"slurm_spec":{"epilog_bash_scripts":"echo"}}}'
is "$CODE" 400 "C5: a script list must be a list"

# --- C6 default partition ----------------------------------------------------------------
patch c1 "updateMask=$SS.partitions" '{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"cpu","node_pool_ids":["cpu"]},{"id":"long","node_pool_ids":["cpu"],"config":{"MaxTime":"7-00:00:00"}}]}}}'
is "$CODE" 200 "C6: add partition long"
patch c1 "updateMask=$SS.default_partition_id" '{"orchestrator_spec":{"slurm_spec":{"default_partition_id":"long"}}}'
got=$(get c1)
is "$CODE $(jq -r .orchestratorSpec.slurmSpec.defaultPartitionId <<<"$got") $(jq -c '[.orchestratorSpec.slurmSpec.partitions[].id]' <<<"$got")" \
	'200 long ["cpu","long"]' "C6: default changed with only its path; partitions untouched"
patch c1 "updateMask=$SS.partitions" '{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"cpu","node_pool_ids":["cpu"]}]}}}'
is "$CODE $(err)" "400 400 INVALID_ARGUMENT" "C6: removing the default partition is rejected"
like "$(msg)" "removes or renames partition 'long', the default partition" "C6: ... naming it"
patch c1 "updateMask=$SS.partitions" '{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"cpu","node_pool_ids":["cpu"]},{"id":"long2","node_pool_ids":["cpu"]}]}}}'
is "$CODE" 400 "C6: renaming the default partition is rejected"
patch c1 "updateMask=$SS.default_partition_id" '{"orchestrator_spec":{"slurm_spec":{"default_partition_id":"nope"}}}'
like "$CODE $(msg)" "^400 default_partition_id 'nope' names no partition" "C6: default must name a partition"
is "$(get c1 | jq -r .orchestratorSpec.slurmSpec.defaultPartitionId)" long "C6: the cluster kept its default"

# --- C7 the three maps, replaced whole; keys ignore case and underscores ----------------------
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityType":"priority/multifactor","PriorityWeightAge":"1000"}}}}'
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightFairshare":"500"}}}}'
is "$(get c1 | jq -c .orchestratorSpec.slurmSpec.config)" '{"PriorityWeightFairshare":"500"}' "C7: config replaced whole (omitted keys removed)"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{}}}}'
is "$CODE $(get c1 | jq -c .orchestratorSpec.slurmSpec.config)" "200 null" "C7: empty map with its path clears it"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"priority_weight_age":"5","PREEMPTMODE":"REQUEUE"}}}}'
is "$CODE $(get c1 | jq -c .orchestratorSpec.slurmSpec.config)" '200 {"priority_weight_age":"5","PREEMPTMODE":"REQUEUE"}' \
	"C7: keys matched ignoring case and underscores"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":"5","priorityweightage":"6"}}}}'
like "$CODE $(msg)" "^400 .*'PriorityWeightAge' and 'priorityweightage' are the same Slurm parameter" "C7: one key twice is rejected"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAgee":"5"}}}}'
like "$CODE $(msg)" "^400 .*unknown key 'PriorityWeightAgee' \(did you mean 'PriorityWeightAge'\?\)" "C7: unknown key named with a suggestion"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":5}}}}'
like "$CODE $(msg)" "^400 Invalid value at 'model_development_cluster.orchestrator_spec.slurm_spec.config\\[PriorityWeightAge\\]' \\(TYPE_STRING\\), 5" \
	"C7: values are strings (the schema's type check, placed)"
patch c1 "updateMask=$SS.node_sets" '{"orchestrator_spec":{"slurm_spec":{"node_sets":[{"node_pool_id":"cpu","config":{"Weight":"10","Features":"fast"}}]}}}'
is "$CODE $(get c1 | jq -c '.orchestratorSpec.slurmSpec.nodeSets[0].config')" '200 {"Weight":"10","Features":"fast"}' "C7: node_sets map accepted"
patch c1 "updateMask=$SS.node_sets" '{"orchestrator_spec":{"slurm_spec":{"node_sets":[{"node_pool_id":"cpu","config":{"Weight":"20"}}]}}}'
is "$(get c1 | jq -c '.orchestratorSpec.slurmSpec.nodeSets[0].config')" '{"Weight":"20"}' "C7: node_sets config replaced whole"
patch c1 "updateMask=$SS.node_sets" '{"orchestrator_spec":{"slurm_spec":{"node_sets":[{"node_pool_id":"login","config":{"Weight":"1"}}]}}}'
is "$CODE" 400 "C7: a node set must name a compute pool"

# --- C9 config vs scheduling/accounting --------------------------------------------------------
patch c1 "updateMask=$SS.config,$SS.scheduling" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":"1"},"scheduling":{"priority_weight_age":1}}}}'
like "$CODE $(msg)" "^400 the request sets both config and the legacy scheduling/accounting" "C9: a request setting both is rejected"
jq '.orchestrator_spec.slurm_spec.scheduling = {"priority_type":"PRIORITY_TYPE_MULTIFACTOR"} | .orchestrator_spec.slurm_spec.accounting = {"accounting_storage_enforce":"limits"}' \
	< <(emu_standard_cluster) >"$TEST_DIR/legacy.json"
emu_create_cluster leg "$TEST_DIR/legacy.json" >/dev/null
patch leg "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightQOS":"100"}}}}'
like "$CODE $(msg)" "^400 the cluster would use both config and the legacy scheduling/accounting fields.*name all three paths" \
	"C9: config alone on a legacy cluster is rejected, with the migration hint"
patch leg "updateMask=$SS.config,$SS.scheduling,$SS.accounting" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityType":"priority/multifactor","AccountingStorageEnforce":"limits","PriorityWeightQOS":"100"}}}}'
got=$(get leg)
is "$CODE $(jq -c '[.orchestratorSpec.slurmSpec.scheduling, .orchestratorSpec.slurmSpec.accounting, .orchestratorSpec.slurmSpec.config.PriorityWeightQOS]' <<<"$got")" \
	'200 [null,null,"100"]' "C9: the documented migration is accepted and clears the legacy fields"
patch leg "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightQOS":"200"}}}}'
is "$CODE" 200 "C9: afterwards a config mask suffices"

# --- C10 refused keys and control characters ----------------------------------------------------
for k in HealthCheckProgram RequeueExit Prolog Epilog; do
	patch c1 "updateMask=$SS.config" "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"$k\":\"x\"}}}}"
	like "$CODE $(msg)" "^400 .*'$k' is refused" "C10: $k refused, named"
done
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"Prolog":"/x"}}}}'
like "$(msg)" "prolog_bash_scripts" "C10: Prolog refusal points to prolog_bash_scripts"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"StorageHost":"db"}}}}'
like "$CODE $(msg)" "^400 .*'StorageHost' is refused.*slurmdbd.conf" "C10: slurmdbd.conf parameters refused"
patch c1 "updateMask=$SS.partitions" '{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"cpu","node_pool_ids":["cpu"]},{"id":"long","node_pool_ids":["cpu"],"config":{"Default":"YES"}}]}}}'
like "$CODE $(msg)" "^400 partition 'long': 'Default' is refused.*default_partition_id" "C10: partition-scope Default refused"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"SchedulerParameters":"bf_continue\nPartitionName=evil"}}}}'
like "$CODE $(msg)" "^400 .*'SchedulerParameters' contains control characters" "C10: newline in a value refused"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"SchedulerParameters":"a\tb"}}}}'
is "$CODE" 400 "C10: tab in a value refused"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"ClusterName":"other"}}}}'
like "$CODE $(msg)" "^400 .*'ClusterName' is service-managed and refused" "C10: service-managed keys refused"
is "$(get c1 | jq -c .orchestratorSpec.slurmSpec.config)" '{"priority_weight_age":"5","PREEMPTMODE":"REQUEUE"}' "C10: refusals changed nothing"

# --- C13 each value checked alone ---------------------------------------------------------------
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":"lots"}}}}'
like "$CODE $(msg)" "^400 .*invalid value PriorityWeightAge='lots'" "C13: a bad value is rejected alone"

# --- cluster id rule ------------------------------------------------------------------------------
for id in Upper 1abc abcdefghijk a-b; do
	code=$(curl -s -o "$TEST_DIR/resp" -w '%{http_code}' -X POST --data-binary @"$TEST_DIR/emu-cluster-c1.json" \
		"$EMU_CLUSTERS?model_development_cluster_id=$id")
	like "$code $(BODY=$(<"$TEST_DIR/resp") msg)" "^400 invalid cluster id '$id'.*\^\[a-z\]\[a-z0-9\]\{0,9\}\\$" "id rule: '$id' rejected"
done
op=$(emu_create_cluster abcdefghij)
is "$(jq -r .done <<<"$op")" true "id rule: ten characters accepted"

# PATCH of an unknown cluster; a body that is not JSON
patch nosuch "updateMask=labels" '{}'
is "$CODE $(err)" "404 404 NOT_FOUND" "PATCH of an unknown cluster: 404"
patch c1 "updateMask=labels" '{"labels":'
like "$CODE $(msg)" "^400 invalid JSON payload" "malformed JSON: 400"

# --- issue 16: programs, ids, numbers, text -------------------------------------------------------
field() { jq -r '.error.details[] | select(."@type" | endswith("BadRequest")) | .fieldViolations[0].field' <<<"$BODY"; }
cfg_before=$(get c1 | jq -c .orchestratorSpec.slurmSpec.config)
for k in PrologSlurmctld EpilogSlurmctld TaskProlog TaskEpilog SrunProlog SrunEpilog UnkillableStepProgram \
	ResvProlog JobSubmitPlugins JobCompLoc Include NodeName PartitionName RequeueExitHold InteractiveStepOptions; do
	patch c1 "updateMask=$SS.config" "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"$k\":\"/tmp/x.sh\"}}}}"
	like "$CODE $(msg)" "^400 .*'$k' is (service-managed and )?refused" "16.1: $k refused"
done
like "$(msg)" "command salloc runs" "16.1: the refusal says why"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"TaskProlog":"/tmp/x.sh"}}}}'
like "$(msg)" "use prolog_bash_scripts" "16.1: TaskProlog points to prolog_bash_scripts"
is "$(get c1 | jq -c .orchestratorSpec.slurmSpec.config)" "$cfg_before" "16.1: the refusals changed nothing"
parts() { get c1 | jq -c --arg id "$1" '{orchestrator_spec: {slurm_spec: {partitions: (.orchestratorSpec.slurmSpec.partitions + [{id: $id, nodePoolIds: ["cpu"]}])}}}'; }
for id in '*' '../../../../etc/passwd' '--help' '-o/tmp/x' 'DEFAULT' 'a b'; do
	patch c1 "updateMask=$SS.partitions" "$(parts "$id")"
	like "$CODE $(msg)" "^400 invalid partition id '$(sed 's/[].*[]/\\&/g' <<<"$id")'" "16.3: partition id '$id' rejected"
done
is "$(field)" "model_development_cluster.$SS.partitions" "16.3: BadRequest names the partitions field"
pools=$(get c1 | jq -c '[.nodePools[] | del(.nodeImage)]')
for n in 100000 10001 -1 1.5 true 1e400 '"1e400"' 9223372036854775807 '"9223372036854775807"'; do
	patch c1 "updateMask=node_pools" "{\"nodePools\":$(jq -c --argjson n "$n" '.[0].scalingSpec.maxNodeCount = $n' <<<"$pools")}"
	like "$CODE $(msg)" "^400 (node pool 'cpu': (scaling_spec.max_node_count must be an integer from 0 to 10000|node counts need 0 <= min <= max <= 10000)|Invalid value at 'model_development_cluster.node_pools\\[0\\].scaling_spec.max_node_count' \\(TYPE_INT64\\))" \
		"16.3: maxNodeCount $n rejected"
done
patch c1 "updateMask=node_pools" "{\"nodePools\":$(jq -c '.[0].scalingSpec.maxNodeCount = "10000"' <<<"$pools")}"
is "$CODE $(get c1 | jq -r '.nodePools[0].scalingSpec.maxNodeCount')" "200 10000" "16.3: 10000 nodes (as a string) accepted"
patch c1 "updateMask=node_pools" "{\"nodePools\":$pools}"
patch c1 "updateMask=labels" "$(printf '{"labels":{"team":"m\377l"}}')"
like "$CODE $(msg)" "^400 labels.team: invalid UTF-8" "16.3: invalid UTF-8 in the body rejected"
patch c1 "updateMask=$SS.config" "$(printf '{"orchestrator_spec":{"slurm_spec":{"config":{"SchedulerParameters":"a\377"}}}}')"
is "$CODE" 400 "16.3: invalid UTF-8 in a Slurm value rejected"
patch c1 "updateMask=labels" "$(jq -nc '{labels: ([range(65)] | map({key: "k\(.)", value: "v"}) | from_entries)}')"
like "$CODE $(msg)" "^400 65 labels: at most 64" "16.3: 65 labels rejected"
patch c1 "updateMask=labels" '{"labels":{"équipe":"données","env":""}}'
is "$CODE $(get c1 | jq -r '.labels["équipe"]')" "200 données" "16.3: international label characters accepted"
patch c1 "updateMask=labels" '{"labels":{"Team":"ml"}}'
like "$CODE $(msg)" "^400 label key 'Team'" "16.3: an upper-case label key rejected"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"SchedulerParameters":"\"bf_continue\""}}}}'
like "$CODE $(msg)" "^400 .*double quote that slurm.conf cannot express" "16.3: a value slurm.conf cannot quote rejected"
patch c1 "updateMask=$SS.config" '{"orchestrator_spec":{"slurm_spec":{"config":{"MailDomain":"a\"b"}}}}'
is "$CODE" 200 "16.3: a double quote inside a word is kept (Slurm reads it verbatim)"

done_testing
