#!/usr/bin/env bash
# Destructive scope commands against the emulator: on a
# terminal they show the change set and ask; "n" sends nothing, "y" sends
# the update; without a terminal they need --yes (or gcloud's --quiet).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
command -v script >/dev/null || skip_all "script (util-linux) is not installed"
plan 12
emu_up
emu_create_cluster c1 >/dev/null || skip_all "cannot create the test cluster"
export MDC_ENDPOINT=$EMU_URL MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR SLURM_CONF=$TEST_DIR/none.conf
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
M=$top_builddir/mdcctl
patches() { grep -c '"method":"PATCH"' "$EMU_LOG"; }
# on_tty ANSWER CMD...: run CMD with a terminal as stdin that answers ANSWER
on_tty() { local a=$1; shift; printf '%s\n' "$a" | script -qec "$(printf '%q ' "$@")" /dev/null; }

"$M" --yes partition create gpu --node-pools cpu >/dev/null
"$M" --yes config set PriorityWeightAge=10 >/dev/null
before=$(patches)
out=$(on_tty n "$M" partition delete gpu 2>&1)
like "$out" "partition gpu" "on a terminal the change set is shown"
like "$out" "This removes what is listed above. Apply\? \[y/N\]" "and the question asked"
like "$out" "cancelled: nothing was sent" "'n' cancels"
is "$(patches)" "$before" "and sends nothing"
out=$(on_tty y "$M" partition delete gpu 2>&1)
is "$(patches)" $((before + 1)) "'y' sends the update"
is "$(printf '%s\n' "$out" | tr -d '\r' | grep -c '^Changes (1):$')" 1 \
	"the change set is shown once, above the question, not again after it"
out=$(on_tty y "$M" config set SchedulerParameters=bf_interval=x 2>&1)
is "$(printf '%s\n' "$out" | tr -d '\r' | grep -c "bf_interval='x' is not a number")" 1 \
	"on a terminal a warning is shown once (in the change set), not also on stderr"
out=$("$M" --yes config set SchedulerParameters=bf_interval=y 2>&1 >/dev/null)
like "$out" "^mdcctl: warning: SchedulerParameters: bf_interval='y' is not a number" \
	"without a terminal it is on stderr too"
is "$("$M" --format 'value(orchestratorSpec.slurmSpec.partitions)' describe | grep -c gpu)" 0 "gpu is gone"
out=$(on_tty n "$M" config unset PriorityWeightAge 2>&1)
like "$out" "cancelled: nothing was sent" "config unset asks too"
out=$("$M" config unset PriorityWeightAge 2>&1 </dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "without a terminal and without --yes it is refused"
ok "--quiet answers yes" "$M" --quiet config unset PriorityWeightAge
