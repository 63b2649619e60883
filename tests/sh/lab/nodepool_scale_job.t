#!/usr/bin/env bash
# On the managed lab: compute's node is the host's own (the
# base's NodeSet, not one named compute-K).  `nodepool scale compute --min
# 0 --max 0` with a job running on it is refused naming the job and sends
# nothing to the emulator; --force sends it, and its read-back does not
# take the node_image the service fills in for "another writer" (exit 11).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_mdc_env
plan 9

patches() { grep -c '"method":"PATCH"' "$log"; }
job=$(sbatch --parsable -p debug -o /dev/null --wrap "sleep 600")
at_exit "scancel $job"
wait_until 30 sh -c "squeue -h -j $job -o %T | grep -q RUNNING"
is "$(squeue -h -j "$job" -o '%T %N')" "RUNNING $host" "a job runs on compute's node $host"
before=$(patches)
out=$("$MDCCTL" --yes nodepool scale compute --min 0 --max 0 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "scaling compute to 0/0 under the job is refused (exit $EXIT_REFUSED)"
like "$out" "node pool 'compute' [a-z ]+ the nodes of jobs $job \\(RUNNING on $host\\)" "... naming the job and its node"
is "$(patches)" "$before" "... and nothing is sent to the emulator"
is "$(squeue -h -j "$job" -o %T)" RUNNING "the job still runs"
syncs=$(lab_syncs)
out=$("$MDCCTL" --yes --force nodepool scale compute --min 0 --max 0 2>&1); rc=$?
is "$rc" 0 "--force sends it and exits 0 (the image the service set is no other writer's)"
is "$(patches)" "$((before + 1))" "... one PATCH"
is "$(grep '"method":"PATCH"' "$log" | tail -1 | jq -c '.body.node_pools[] | select(.id == "compute") | .scaling_spec')" \
	'{"min_node_count":0,"max_node_count":0}' "... scaling compute to 0/0"
like "$out" "loses the nodes of jobs $job \\(RUNNING on $host\\) \\(--force\\)" "... warning it ends the job"
lab_wait_sync "$syncs" 60 || diag "no reload within 60 s"
