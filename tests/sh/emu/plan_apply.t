#!/usr/bin/env bash
# mdcctl apply, edit and migrate-config against the emulator, which
# regenerates the live slurm.conf like the service: the exact PATCH query
# and body from the request log, confirmation rules, an EDITOR script,
# an unchanged edit, migrate-config, and refusals that send nothing.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"
command -v jq >/dev/null || skip_all "jq is not installed"

plan 31
DATA=$top_srcdir/tests/plan
export SLURM_CONF=$TEST_DIR/live.conf
emu_up --slurm-conf "$SLURM_CONF" --slurm-base "$DATA/base.conf"
emu_create_cluster c1 >/dev/null || { fail "cluster created"; exit 1; }
export MDC_ENDPOINT=$EMU_URL MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/c1
export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_ACCESS_TOKEN VISUAL
# a login node without Slurm: even if a slurmctld listens on this machine's
# default port, verify must not consult it
export MDC_SCONTROL=$TEST_DIR/no-scontrol
patches() { jq -c 'select(.method == "PATCH") | {query, body}' "$EMU_LOG"; }
npatches() { patches | wc -l; }
files_eq "the emulator wrote the live slurm.conf" "$SLURM_CONF" "$DATA/render-c1.conf"

# apply FILE: exactly the config map, USER_ONLY
cp "$SLURM_CONF" "$TEST_DIR/new.conf"
echo "PriorityWeightAge=2000" >>"$TEST_DIR/new.conf"
out=$(mdcctl apply "$TEST_DIR/new.conf" </dev/null 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "apply without --yes and without a terminal is refused"
like "$out" "give --yes" "and says how to apply"
is "$(npatches)" 0 "nothing was sent"

out=$(mdcctl --yes apply "$TEST_DIR/new.conf" 2>&1); rc=$?
is "$rc" "$EXIT_OK" "apply --yes exits 0"
like "$out" "updateMask: orchestrator_spec\.slurm_spec\.config" "apply prints the plan"
like "$out" "verify: no local slurmctld answered" "verify says it could not check (no slurmctld)"
is "$(patches)" \
	'{"query":{"updateMask":"orchestrator_spec.slurm_spec.config","updateMode":"USER_ONLY"},"body":{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":"2000"}}}}}' \
	"apply sent exactly the config path, the whole map, USER_ONLY"
like "$(grep PriorityWeightAge "$SLURM_CONF")" "PriorityWeightAge=2000" "the regenerated slurm.conf has it"

# the same file again: nothing to do, nothing sent
out=$(mdcctl --yes apply "$TEST_DIR/new.conf" 2>&1)
like "$out" "No changes" "applying an applied file changes nothing"
is "$(npatches)" 1 "and sends nothing"

# apply --format json: plan, operation, verify
sed 's/^PriorityWeightAge=.*/PriorityWeightAge=3000/' "$SLURM_CONF" >"$TEST_DIR/j.conf"
json=$(mdcctl --yes --format json apply "$TEST_DIR/j.conf")
is "$(jq -r '.plan.changes[0] | "\(.scope) \(.key) \(.old) \(.new)"' <<<"$json")" \
	"config PriorityWeightAge 2000 3000" "apply --format json: the change"
is "$(jq -r '.operation.done' <<<"$json")" true "apply --format json: the finished operation"
is "$(jq -r '.verify.live' <<<"$json")" false "apply --format json: verify result"

# --async: the operation name and how to wait, no verify
sed 's/^PriorityWeightAge=.*/PriorityWeightAge=3500/' "$SLURM_CONF" >"$TEST_DIR/a.conf"
out=$(mdcctl --yes --async apply "$TEST_DIR/a.conf" 2>&1)
like "$out" "wait for it with: mdcctl operations wait projects/[0-9]+/locations/us-central1/operations/[0-9]+" \
	"apply --async prints the operation and how to wait for it"
unlike "$out" "verify:" "and does not verify"
op=$(sed -n 's/^operation: //p' <<<"$out")
emu_wait_op "$op" >/dev/null

# edit: EDITOR is a sed script; the difference is applied
export EDITOR="sed -i -e 's/^PartitionName=cpu .*/& MaxTime=120/'"
out=$(mdcctl --yes edit 2>&1); rc=$?
is "$rc" "$EXIT_OK" "edit exits 0"
is "$(patches | tail -n 1)" \
	'{"query":{"updateMask":"orchestrator_spec.slurm_spec.partitions","updateMode":"USER_ONLY"},"body":{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"cpu","node_pool_ids":["cpu"],"config":{"MaxTime":"120"}}]}}}}' \
	"edit sent the whole partitions list with the new MaxTime"
like "$(grep '^PartitionName=cpu' "$SLURM_CONF")" "MaxTime=120" "the regenerated slurm.conf has it"

n=$(npatches)
EDITOR=true out=$(mdcctl --yes edit 2>&1)
like "$out" "unchanged: nothing to apply" "an unchanged edit says so"
is "$(npatches)" "$n" "and sends nothing"
EDITOR=false out=$(mdcctl --yes edit 2>&1); rc=$?
isnt "$rc" "$EXIT_OK" "a failing editor fails the edit"
is "$(npatches)" "$n" "and sends nothing"

# refusals send nothing
export EDITOR="sed -i -e '\$a Prolog=/etc/slurm/prolog.sh'"
out=$(mdcctl --yes edit 2>&1); rc=$?
like "$out" "error: .*slurm.conf:[0-9]+: .*Prolog" "edit adding Prolog= is refused, naming the line and the key"
is "$(npatches)" "$n" "nothing was sent"

# a key on a pool's NodeName line becomes node_sets (C7)
export EDITOR="sed -i -e 's/^NodeName=cpu-.*/& Weight=10/'"
out=$(mdcctl --yes edit 2>&1); rc=$?
is "$rc" "$EXIT_OK" "edit of a NodeName line exits 0"
is "$(patches | tail -n 1)" \
	'{"query":{"updateMask":"orchestrator_spec.slurm_spec.node_sets","updateMode":"USER_ONLY"},"body":{"orchestrator_spec":{"slurm_spec":{"node_sets":[{"node_pool_id":"cpu","config":{"Weight":"10"}}]}}}}' \
	"edit sent the node_sets list"
like "$(grep '^NodeName=cpu' "$SLURM_CONF")" "Weight=10" "the regenerated NodeName line has it"
is "$(mdcctl plan 2>&1)" "No changes: the managed spec already matches." "and the live file plans clean again"

# migrate-config on a cluster with legacy scheduling/accounting (C9)
jq '.orchestrator_spec.slurm_spec.scheduling = {"priority_type": "priority/multifactor", "priority_weight_qos": "500"}
    | .orchestrator_spec.slurm_spec.accounting = {"accounting_storage_enforce": "limits"}' \
	< <(emu_standard_cluster) >"$TEST_DIR/legacy.json"
emu_create_cluster old1 "$TEST_DIR/legacy.json" >/dev/null
out=$(mdcctl --yes --cluster "$EMU_PARENT/modelDevelopmentClusters/old1" migrate-config 2>&1); rc=$?
is "$rc" "$EXIT_OK" "migrate-config exits 0"
is "$(patches | tail -n 1)" \
	'{"query":{"updateMask":"orchestrator_spec.slurm_spec.config,orchestrator_spec.slurm_spec.scheduling,orchestrator_spec.slurm_spec.accounting","updateMode":"USER_ONLY"},"body":{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityType":"priority/multifactor","PriorityWeightQOS":"500","AccountingStorageEnforce":"limits"}}}}}' \
	"migrate-config: every setting in config, the three paths named, legacy fields omitted"
