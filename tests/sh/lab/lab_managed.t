#!/usr/bin/env bash
# A --managed lab: mdc-emulator runs under DIR, the cluster was created
# with the exact request the lab promises, its slurm.conf was applied before
# up returned, a later PATCH is reloaded into the live slurmctld through
# `slurm-lab reload`, and down stops the emulator too.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
lab_up --managed
plan 20
show_on_fail "$TEST_DIR/srun.err"
host=$(hostname -s)
log=$LAB_DIR/emu/requests.log
show_on_fail "$log"

like "$MDC_ENDPOINT" '^http://127\.0\.0\.1:[0-9]+$' "up exports the emulator's loopback URL"
is "$MDC_CLUSTER" projects/lab/locations/local/modelDevelopmentClusters/lab "up exports the cluster name"

# the create request, exactly
is "$(head -1 "$log" | jq -c '[.method, .path, .query]')" \
	'["POST","/v1beta1/projects/lab/locations/local/modelDevelopmentClusters",{"model_development_cluster_id":"lab"}]' \
	"the first request creates cluster lab"
is "$(head -1 "$log" | jq -c '.body | [[.node_pools[] | [.id, .machine_spec.machine_type,
	.scaling_spec.min_node_count, .scaling_spec.max_node_count]], .orchestrator_spec.slurm_spec]')" \
	'[[["compute","n2-standard-2",1,1],["login","n2-standard-2",1,1]],{"home_directory_storage":"projects/lab/locations/local-a/instances/home","login_node_pool_id":"login","partitions":[{"id":"debug","node_pool_ids":["compute"]}],"default_partition_id":"debug"}]' \
	"it sends the compute and login pools and partition debug"
polls=$(tail -n +2 "$log" | jq -r '.method + " " + .path' | sort -u)
is "$(sed -E 's|^GET /v1/projects/[0-9]+/locations/local/operations/[^ /]+$|poll|' <<<"$polls")" poll \
	"then it only polls the operation with /v1/"

cl=$(lab_curl "$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER")
is "$(jq -r '.name + " " + .state' <<<"$cl")" "$MDC_CLUSTER RUNNING" "the cluster is running"

# the emulator regenerated slurm.conf = base + the cluster's partitions,
# and it was applied (a sync counted) before up returned
nb=$(wc -l <"$LAB_DIR/etc/slurm.base.conf")
head -n "$nb" "$SLURM_CONF" >"$TEST_DIR/head.conf"
files_eq "slurm.conf starts with the lab's base" "$TEST_DIR/head.conf" "$LAB_DIR/etc/slurm.base.conf"
like "$(tail -n +"$((nb + 1))" "$SLURM_CONF")" '^PartitionName=debug Nodes=compute( |$)' \
	"the rendered partition names the compute NodeSet"
like "$(cat "$LAB_DIR/run/sync.count")" '^1 (reload|restart) 0$' "the created cluster's slurm.conf was applied once"
is "$(timeout 60 srun -t 1 hostname 2>>"$TEST_DIR/srun.err")" "$host" "jobs run in the managed lab"

status=$(slurm-lab status "$LAB_DIR" 2>&1)
like "$status" "^emulator running pid [0-9]+ url $MDC_ENDPOINT\$" "status reports the emulator and its URL"
like "$status" "^cluster $MDC_CLUSTER\$" "status reports the cluster"

# a PATCH of a partition's config: regenerated, then `slurm-lab reload`
n=$(lab_syncs)
op=$(lab_curl -X PATCH -H 'Content-Type: application/json' --data-binary \
	'{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"debug","node_pool_ids":["compute"],"config":{"MaxTime":"30"}}]}}}' \
	"$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER?updateMask=orchestrator_spec.slurm_spec.partitions&updateMode=USER_ONLY")
like "$(jq -r .name <<<"$op")" '/operations/' "the PATCH returns an operation"
lab_wait_sync "$n" 60
is "$(cut -d' ' -f2- "$LAB_DIR/run/sync.count")" "reload 0" "an unchanged node set is applied by a reload"
like "$(scontrol show partition debug --oneliner)" '(^| )MaxTime=00:30:00( |$)' \
	"the live slurmctld has the new MaxTime"

emu_pid=$(cat "$LAB_DIR/run/emulator.pid")
ok "down stops the managed lab" slurm-lab down "$LAB_DIR"
st=$(sed 's/.*) //' "/proc/$emu_pid/stat" 2>/dev/null | cut -d' ' -f1)
ok "the emulator is gone" test -z "$st" -o "$st" = Z

# up again in the same directory: the emulator's state file kept the
# cluster, so up re-applies it (an unchanged labels update) instead of
# creating it, and the PATCHed MaxTime is back in the live slurmctld
nreq=$(wc -l <"$log")
out=$(slurm-lab up "$LAB_DIR" --managed 2>"$TEST_DIR/up2.err")
is "$?" 0 "up --managed again in the same directory"
show_on_fail "$TEST_DIR/up2.err"
eval "$out"
is "$(tail -n +"$((nreq + 1))" "$log" | jq -c 'select(.method != "GET") | [.method, .path, .query, .body]')" \
	'["POST","/v1beta1/projects/lab/locations/local/modelDevelopmentClusters",{"model_development_cluster_id":"lab"},'"$(head -1 "$log" | jq -c .body)"']
["PATCH","/v1beta1/projects/lab/locations/local/modelDevelopmentClusters/lab",{"updateMask":"labels","updateMode":"USER_ONLY"},{"labels":{}}]' \
	"it tried to create, then re-applied the kept cluster with an unchanged labels update"
like "$(scontrol show partition debug --oneliner)" '(^| )MaxTime=00:30:00( |$)' \
	"the kept cluster's MaxTime is live again"
