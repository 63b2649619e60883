#!/usr/bin/env bash
# apply/edit against a managed lab (real slurmctld fed by the emulator):
# the live slurm.conf plans clean, an edit is applied and verified on the
# running slurmctld, a restart key is planned and reported as not
# verifiable until a restart.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
command -v jq >/dev/null || skip_all "jq is not installed"
command -v curl >/dev/null || skip_all "curl is not installed"
lab_up --managed
plan 18
export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_ACCESS_TOKEN VISUAL
log=$LAB_DIR/emu/requests.log
show_on_fail "$log"
patches() { jq -c 'select(.method == "PATCH") | {query, body}' "$log"; }

out=$(mdcctl plan 2>&1)
is "$out" "No changes: the managed spec already matches." "the lab's live slurm.conf plans clean"

export EDITOR="sed -i -e 's/^PartitionName=debug .*/& MaxTime=30/' -e '\$a MaxJobCount=20000'"
out=$(mdcctl --yes edit 2>&1); rc=$?
is "$rc" 0 "edit exits 0"
is "$(patches)" \
	'{"query":{"updateMask":"orchestrator_spec.slurm_spec.partitions,orchestrator_spec.slurm_spec.config","updateMode":"USER_ONLY"},"body":{"orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"debug","node_pool_ids":["compute"],"config":{"MaxTime":"30"}}],"config":{"MaxJobCount":"20000"}}}}}' \
	"edit sent both paths, complete"
like "$out" "verify: ok: partition debug MaxTime=00:30:00" "verify saw the partition change on slurmctld"
like "$out" "verify: ok: config MaxJobCount=20000" "verify saw the config change on slurmctld"
like "$(scontrol show partition debug --oneliner)" '(^| )MaxTime=00:30:00( |$)' "slurmctld really has it"
is "$(mdcctl plan 2>&1)" "No changes: the managed spec already matches." "the regenerated file plans clean"

json=$(EDITOR=true mdcctl --yes --format json edit)
is "$json" '{ "unchanged": true }' "an unchanged edit says so in JSON"

# a restart key: listed by plan, not verifiable after apply
sed 's/^SelectTypeParameters=.*/SelectTypeParameters=CR_Core_Memory/' "$SLURM_CONF" >"$TEST_DIR/restart.conf"
out=$(mdcctl plan "$TEST_DIR/restart.conf" 2>&1)
like "$out" "\\+ config SelectTypeParameters: \\(absent\\) -> CR_Core_Memory" "plan shows the restart key (absent from the spec so far)"
like "$out" "restart needed: SelectTypeParameters" "plan says it needs a restart"
out=$(mdcctl --yes apply "$TEST_DIR/restart.conf" 2>&1)
like "$out" "verify: not checked: config SelectTypeParameters: needs a slurmctld restart" \
	"verify reports it cannot see a restart key yet"

# C13: each value is valid alone, the file is not; Slurm's verdict before
# the PATCH refuses it (EXIT_REFUSED) and nothing is sent (verdict_lab.t has more)
cp "$SLURM_CONF" "$TEST_DIR/gang.conf"
printf '%s\n' PreemptType=preempt/partition_prio PreemptMode=SUSPEND >>"$TEST_DIR/gang.conf"
npatch=$(patches | wc -l)
out=$(mdcctl --yes apply --verify-timeout 20 "$TEST_DIR/gang.conf" 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "an update slurmctld cannot take is refused before sending (exit $EXIT_REFUSED)"
like "$out" "PreemptMode=SUSPEND requires GANG too" "the refusal names Slurm's own complaint"
is "$(patches | wc -l)" "$npatch" "nothing was sent"

# MaxNodeCount: the service reloads slurm.conf for a setting, and a reload
# with another MaxNodeCount stops slurmctld ("MaxNodeCount has changed ...
# during reconfig"): refused before sending, slurmctld stays up
npatch=$(patches | wc -l)
out=$(mdcctl --yes config set MaxNodeCount=10 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "config set MaxNodeCount is refused (exit $EXIT_REFUSED)"
like "$out" "MaxNodeCount: slurmctld stops when the service reloads slurm.conf" "saying slurmctld would stop"
is "$(patches | wc -l)" "$npatch" "nothing was sent"
ok "slurmctld is still up" scontrol ping
