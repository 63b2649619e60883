#!/usr/bin/env bash
# mdcctl scope writes against the emulator: each command's exact PATCH
# (path, updateMask, updateMode, body) from the request log, the cluster
# afterwards, and --format json output.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 67
emu_mdcctl_env c1
CPATH=/v1beta1/$MDC_CLUSTER
SS=orchestrator_spec.slurm_spec
SSC=orchestratorSpec.slurmSpec	# describe prints the resource as the API does

# the PATCH requests since the last call: "QUERY BODY" (body keys sorted)
patches() {
	jq -c -S 'select(.method == "PATCH") | [.path, .query.updateMask, .query.updateMode, .body]' "$EMU_LOG"
	: >"$EMU_LOG"
}
spec() { M describe --format json | jq -c -S "$1"; : >"$EMU_LOG"; }
: >"$EMU_LOG"

# --- config ---------------------------------------------------------------
ok "config set" M config set PriorityType=priority/multifactor PriorityWeightAge=1000
is "$(patches)" "[\"$CPATH\",\"$SS.config\",\"USER_ONLY\",{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"PriorityType\":\"priority/multifactor\",\"PriorityWeightAge\":\"1000\"}}}}]" \
	"config set: one PATCH, config mask, USER_ONLY, the whole map"
is "$(M config get priorityweightage)" 1000 "config get matches keys case-insensitively"
ok "config set another key" M config set PreemptMode=OFF
is "$(patches)" "[\"$CPATH\",\"$SS.config\",\"USER_ONLY\",{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"PreemptMode\":\"OFF\",\"PriorityType\":\"priority/multifactor\",\"PriorityWeightAge\":\"1000\"}}}}]" \
	"the complete map is resent (C7)"
ok "config unset" M --yes config unset PriorityWeightAge
is "$(patches)" "[\"$CPATH\",\"$SS.config\",\"USER_ONLY\",{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"PreemptMode\":\"OFF\",\"PriorityType\":\"priority/multifactor\"}}}}]" \
	"config unset sends the map without the key"
is "$(spec ".$SSC.config")" '{"PreemptMode":"OFF","PriorityType":"priority/multifactor"}' "the cluster has it"

# --- update mode ------------------------------------------------------------
ok "config set with --update-mode USER_AND_SERVICE" M --update-mode USER_AND_SERVICE config set PriorityWeightFairshare=10
is "$(patches | jq -r '.[2]')" USER_AND_SERVICE "--update-mode is sent"

# --- partitions ---------------------------------------------------------------
ok "partition create" M partition create gpu --node-pools cpu MaxTime=60 PriorityTier=2
is "$(patches)" "[\"$CPATH\",\"$SS.partitions\",\"USER_ONLY\",{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":[{\"id\":\"cpu\",\"node_pool_ids\":[\"cpu\"]},{\"config\":{\"MaxTime\":\"60\",\"PriorityTier\":\"2\"},\"id\":\"gpu\",\"node_pool_ids\":[\"cpu\"]}]}}}]" \
	"partition create sends the complete partition list"
ok "partition update" M partition update gpu MaxTime=120
is "$(patches | jq -c '.[3].orchestrator_spec.slurm_spec.partitions[1]')" '{"config":{"MaxTime":"120","PriorityTier":"2"},"id":"gpu","node_pool_ids":["cpu"]}' \
	"partition update changes one key and keeps the others"
ok "partition unset" M --yes partition unset gpu PriorityTier
is "$(spec ".$SSC.partitions[1].config")" '{"MaxTime":"120"}' "partition unset removed the key"
: >"$EMU_LOG"
ok "partition default" M partition default gpu
is "$(patches)" "[\"$CPATH\",\"$SS.default_partition_id\",\"USER_ONLY\",{\"orchestrator_spec\":{\"slurm_spec\":{\"default_partition_id\":\"gpu\"}}}]" \
	"partition default sends only default_partition_id (C6)"
M --yes partition delete gpu >/dev/null 2>"$TEST_DIR/err"
is "$?" "$EXIT_REFUSED" "deleting the default partition is refused before sending"
is "$(patches)" "" "and sends no PATCH"
ok "partition default back" M partition default cpu
ok "partition delete" M --yes partition delete gpu
is "$(patches | tail -n 1 | jq -c '.[3]')" '{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"cpu","node_pool_ids":["cpu"]}]}}}' \
	"partition delete sends the remaining list"

# --- node sets ----------------------------------------------------------------
ok "nodeset set" M nodeset set cpu Weight=10 Features=fast
is "$(patches)" "[\"$CPATH\",\"$SS.node_sets\",\"USER_ONLY\",{\"orchestrator_spec\":{\"slurm_spec\":{\"node_sets\":[{\"config\":{\"Features\":\"fast\",\"Weight\":\"10\"},\"node_pool_id\":\"cpu\"}]}}}]" \
	"nodeset set sends node_sets"
is "$(M nodeset show cpu)" "$(printf 'Weight=10\nFeatures=fast')" "nodeset show text"
ok "nodeset unset" M --yes nodeset unset cpu Features
is "$(spec ".$SSC.nodeSets")" '[{"config":{"Weight":"10"},"nodePoolId":"cpu"}]' "nodeset unset removed the key"

# --- node pools ---------------------------------------------------------------
: >"$EMU_LOG"
ok "nodepool scale" M nodepool scale cpu --min 0 --max 4
p=$(patches)
is "$(printf '%s' "$p" | jq -r '.[1]')" node_pools "nodepool scale masks node_pools"
is "$(printf '%s' "$p" | jq -c '[.[3].node_pools[] | {id, s: .scaling_spec}]')" \
	'[{"id":"cpu","s":{"max_node_count":4,"min_node_count":0}},{"id":"login","s":{"max_node_count":1,"min_node_count":1}}]' \
	"nodepool scale sends the complete pool list with the new counts"
: >"$EMU_LOG"
ok "nodepool scale --max alone" M nodepool scale cpu --max 6
is "$(patches | jq -c '[.[3].node_pools[] | select(.id == "cpu") | .scaling_spec]')" \
	'[{"max_node_count":6,"min_node_count":0}]' "it keeps the pool's min"
out=$(M nodepool scale cpu --min 7 2>&1); rc=$?
like "$rc:$out" "^$EXIT_REFUSED:.*node counts need 0 <= min <= max .*\\(got min 7, max 6\\)" \
	"--min alone above the pool's max is refused"
is "$(patches)" "" "and sent nothing"
cur=$(M describe --format json | jq -r '.nodePools[0].nodeImage')
: >"$EMU_LOG"
ok "nodepool image --pin to the running image" M nodepool image cpu --pin "$cur"
is "$(patches)" "" "pinning the image the pool already reports sends nothing"
M nodepool image cpu --pin img-other >/dev/null 2>"$TEST_DIR/err"
is "$?" "$EXIT_REFUSED" "pinning another image is refused without --allow-recreate"
like "$(cat "$TEST_DIR/err")" "recreat" "and says the nodes would be recreated"
is "$(patches)" "" "and sends no PATCH"
M --allow-recreate nodepool image cpu --pin img-other </dev/null >/dev/null 2>"$TEST_DIR/err"
is "$?" "$EXIT_REFUSED" "with --allow-recreate but no terminal it still wants --yes"
is "$(tail -n 1 "$TEST_DIR/err")" "mdcctl: error: node pool 'cpu': recreating the nodes of node pool 'cpu' needs a confirmation and there is no terminal: give --yes; nothing was sent" \
	"and says so in one error line"
ok "--allow-recreate --yes moves the image" M --allow-recreate --yes nodepool image cpu --pin img-other
is "$(spec '[.nodePools[] | {id, node_image: .nodeImage}]')" '[{"id":"cpu","node_image":"img-other"},{"id":"login","node_image":"'"$cur"'"}]' \
	"the pool is pinned to the new image, the login pool untouched"
: >"$EMU_LOG"
ok "nodepool image --unpin" M nodepool image cpu --unpin
is "$(patches | jq -c '.[3].node_pools[0] | has("node_image")')" false "unpin sends the pool without node_image"

# --- prolog / epilog ---------------------------------------------------------
printf '#!/bin/bash\necho one\n' >"$TEST_DIR/p1.sh"
printf '#!/bin/bash\necho two\n' >"$TEST_DIR/p2.sh"
ok "prolog add" M prolog add "$TEST_DIR/p1.sh"
ok "prolog add a second" M prolog add "$TEST_DIR/p2.sh"
p=$(patches | tail -n 1)
is "$(printf '%s' "$p" | jq -c '[.[1], .[3]]')" "[\"$SS.prolog_bash_scripts\",{\"orchestrator_spec\":{\"slurm_spec\":{\"prolog_bash_scripts\":[\"#!/bin/bash\\necho one\\n\",\"#!/bin/bash\\necho two\\n\"]}}}]" \
	"prolog add sends the complete list (C5)"
ok "prolog remove 0" M prolog remove 0
is "$(spec ".$SSC.prologBashScripts")" '["#!/bin/bash\necho two\n"]' "prolog remove dropped the first"
ok "epilog replace" M epilog replace "$TEST_DIR/p1.sh" "$TEST_DIR/p2.sh"
is "$(M epilog list)" "$(printf -- '--- [0]\n#!/bin/bash\necho one\n--- [1]\n#!/bin/bash\necho two')" "epilog list text"

# --- labels ---------------------------------------------------------------------
: >"$EMU_LOG"
ok "labels set" M labels set env=prod
is "$(patches)" "[\"$CPATH\",\"labels\",\"USER_ONLY\",{\"labels\":{\"env\":\"prod\",\"team\":\"ml\"}}]" \
	"labels set sends the whole label map with mask labels"
ok "labels unset" M labels unset team
is "$(spec .labels)" '{"env":"prod"}' "labels unset removed it"

# --- --format json and no-op ------------------------------------------------------
out=$(M --format json labels set env=dev)
is "$(printf '%s' "$out" | jq -r '.plan.update_mask | join(",")')" labels "json output carries the plan's mask"
is "$(printf '%s' "$out" | jq -r '.operation.done')" true "json output carries the finished operation"
: >"$EMU_LOG"
out=$(M labels set env=dev)
like "$out" "no change" "setting the same value says no change"
is "$(patches)" "" "and sends no PATCH"

# --- raw update -------------------------------------------------------------------
printf '{"labels": {"owner": "hpc"}, "orchestratorSpec": {"slurmSpec": {"config": {"PriorityType": "priority/basic"}}}}\n' >"$TEST_DIR/raw.json"
: >"$EMU_LOG"
ok "update FILE --update-mask (camelCase accepted)" M update "$TEST_DIR/raw.json" --update-mask labels,orchestratorSpec.slurmSpec.config
is "$(patches)" "[\"$CPATH\",\"labels,$SS.config\",\"USER_ONLY\",{\"labels\":{\"owner\":\"hpc\"},\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"PriorityType\":\"priority/basic\"}}}}]" \
	"update sends the file as given with the canonical mask and USER_ONLY"
is "$(spec .labels)" '{"owner":"hpc"}' "the masked label map was replaced whole"
: >"$EMU_LOG"
# the cpu pool was unpinned above while running img-other: a USER_AND_SERVICE
# update would resolve it to the default image and recreate its nodes (C11)
M update "$TEST_DIR/raw.json" --update-mask labels --update-mode USER_AND_SERVICE >/dev/null 2>"$TEST_DIR/err"
is "$?" "$EXIT_REFUSED" "a raw USER_AND_SERVICE update that would move an unpinned pool is refused"
like "$(cat "$TEST_DIR/err")" "node pool 'cpu' would move to another image" "and names the pool"
is "$(patches)" "" "and sends no PATCH"
