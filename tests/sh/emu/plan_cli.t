#!/usr/bin/env bash
# mdcctl render and plan against the emulator: the rendered slurm.conf,
# the change set of an edited slurm.conf (scope, old -> new, exact mask and
# mode), --format json, and refusals -- none of which may send a write.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"
command -v jq >/dev/null || skip_all "jq is not installed"

plan 28
emu_up
emu_create_cluster c1 >/dev/null || { fail "cluster created"; exit 1; }
export MDC_ENDPOINT=$EMU_URL MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/c1
export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_ACCESS_TOKEN
DATA=$top_srcdir/tests/plan
writes() { jq -c 'select(.method != "GET")' "$EMU_LOG" | wc -l; }

# render: the spec over an explicit base
mdcctl render --base "$DATA/base.conf" >"$TEST_DIR/live.conf" 2>"$TEST_DIR/err"
is "$?" 0 "render --base exits 0"
files_eq "render --base gives the base plus the spec's partitions" "$TEST_DIR/live.conf" "$DATA/render-c1.conf"
export SLURM_CONF=$TEST_DIR/live.conf
# render without --base takes the live slurm.conf minus comments,
# partitions and what the spec sets; other global lines are the service's
# when they come before the part the spec renders (the service writes its
# own lines first); one after it was added by hand and is not the base
sed -i '1a SchedulerType=sched/backfill' "$SLURM_CONF"
printf '%s\n' "# a comment" "PartitionName=stale Nodes=cpu" "MinJobAge=60" >>"$SLURM_CONF"
out=$(mdcctl render)
is "$out" "$(grep -v '^#' "$DATA/render-c1.conf" | sed '1i SchedulerType=sched/backfill')" \
	"render: default base = the live file's service lines"
is "$(mdcctl --format json render | jq -r .slurm_conf)" "$out" "render --format json"
cp "$DATA/render-c1.conf" "$SLURM_CONF"

# plan of the live file in sync with the spec
out=$(mdcctl plan 2>&1)
is "$?" 0 "plan of an unchanged live slurm.conf exits 0"
is "$out" "No changes: the managed spec already matches." "plan says there is nothing to do"

# a PriorityWeightAge edit
sed 's/^PartitionName=cpu .*/& MaxTime=120/' "$SLURM_CONF" >"$TEST_DIR/new.conf"
echo "PriorityWeightAge=2000" >>"$TEST_DIR/new.conf"
out=$(mdcctl plan "$TEST_DIR/new.conf" 2>&1)
is "$?" 0 "plan FILE exits 0"
like "$out" '\+ config PriorityWeightAge: \(absent\) -> 2000' "plan shows the config change"
like "$out" '\+ partition cpu MaxTime: \(absent\) -> 120' "plan shows the partition change with its scope"
like "$out" 'updateMask: orchestrator_spec\.slurm_spec\.partitions,orchestrator_spec\.slurm_spec\.config' "plan shows the exact mask"
like "$out" 'updateMode: USER_ONLY' "USER_ONLY by default"
like "$out" 'node pools recreated: none' "no pool recreated"

json=$(mdcctl --format json plan "$TEST_DIR/new.conf")
is "$(jq -c .update_mask <<<"$json")" \
	'["orchestrator_spec.slurm_spec.partitions","orchestrator_spec.slurm_spec.config"]' "plan --format json: mask"
is "$(jq -c .payload.orchestrator_spec.slurm_spec.config <<<"$json")" '{"PriorityWeightAge":"2000"}' \
	"plan --format json: payload carries the whole config map"
is "$(mdcctl --update-mode USER_AND_SERVICE --format json plan "$TEST_DIR/new.conf" 2>/dev/null | jq -r .update_mode)" \
	USER_AND_SERVICE "--update-mode is honoured"

# a restart key
echo "SelectType=select/linear" >>"$TEST_DIR/new.conf"
like "$(mdcctl plan "$TEST_DIR/new.conf")" 'restart needed: SelectType' "restart keys are listed"

# refusals: one clear line, a non-zero exit, nothing sent
cp "$SLURM_CONF" "$TEST_DIR/bad.conf"
echo "HealthCheckProgram=/usr/sbin/nhc" >>"$TEST_DIR/bad.conf"
out=$(mdcctl plan "$TEST_DIR/bad.conf" 2>&1); rc=$?
isnt "$rc" 0 "a refused key fails the plan"
like "$out" "error: .*bad.conf:[0-9]+: .*HealthCheckProgram" "the refusal names the line and the key"

cp "$SLURM_CONF" "$TEST_DIR/typo.conf"
echo "PriorityWeightAgee=5" >>"$TEST_DIR/typo.conf"
out=$(mdcctl plan "$TEST_DIR/typo.conf" 2>&1)
like "$out" "PriorityWeightAge" "an unknown key gets a did-you-mean"

grep -v '^PartitionName=cpu' "$SLURM_CONF" >"$TEST_DIR/nodefault.conf"
echo "PartitionName=batch Nodes=cpu Default=YES" >>"$TEST_DIR/nodefault.conf"
out=$(mdcctl plan "$TEST_DIR/nodefault.conf" 2>&1); rc=$?
isnt "$rc" 0 "renaming the default partition is refused"
like "$out" "default partition" "the refusal says why"

out=$(mdcctl --update-mode USER_AND_SERVICE plan "$TEST_DIR/new.conf" 2>&1); rc=$?
like "$out" "empty node_image .* cannot be pinned" \
	"USER_AND_SERVICE on a never-updated cluster: the pool cannot be pinned"
is "$(writes)" 1 "plan never sent a write (only the create)"

# usage errors and a missing file: exit status, one line, no request at all
n=$(wc -l <"$EMU_LOG")
mdcctl plan a b >/dev/null 2>"$TEST_DIR/err"; is "$?" "$EXIT_USAGE" "plan with two files is a usage error"
mdcctl apply --bogus >/dev/null 2>&1; is "$?" "$EXIT_USAGE" "an unknown option is a usage error"
out=$(mdcctl plan "$TEST_DIR/nope.conf" 2>&1); rc=$?
is "$rc" "$EXIT_IO" "a missing FILE fails (I/O)"
like "$out" "^mdcctl: error: cannot read '.*nope.conf'" "in one line naming the file"
is "$(wc -l <"$EMU_LOG")" "$n" "none of them sent a request"
