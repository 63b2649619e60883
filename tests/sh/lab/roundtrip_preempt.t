#!/usr/bin/env bash
# Preemption settings side by side on the managed lab: the admin's usual
# way (edit slurm.conf, scontrol reconfigure) is lost at the next
# regeneration; `mdcctl config set` survives it and a slurmctld restart.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
lab_mdc_env
plan 15

cval() { scontrol show config | sed -n "s/^$1 *= //p"; }
pval() { scontrol show partition "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
# for wait_until, which runs its command again on every poll
cval_is() { [ "$(cval "$1")" = "$2" ]; }
pval_is() { [ "$(pval "$1" "$2")" = "$3" ]; }
# regenerate: an unrelated label change, then wait until slurmctld has
# reloaded (a runtime PriorityTier marker is reset by every reload)
regenerate() {
	scontrol update PartitionName=debug PriorityTier=77 || return 1
	"$MDCCTL" --yes labels set "regen=$(date +%s%N)" >/dev/null || return 1
	wait_until 30 pval_is debug PriorityTier 1
}

# --- the usual way: edit slurm.conf and reconfigure
printf '%s\n' PreemptType=preempt/partition_prio PreemptMode=REQUEUE >>"$SLURM_CONF"
ok "scontrol reconfigure after editing slurm.conf" scontrol reconfigure
wait_until 15 cval_is PreemptType preempt/partition_prio
is "$(cval PreemptType) $(cval PreemptMode)" "preempt/partition_prio REQUEUE" "the hand edit is live"
out=$("$MDCCTL" drift 2>&1)
like "$out" "config +PreemptType +preempt/partition_prio +preempt/none" "drift reports the hand-edited PreemptType"
like "$out" "config +PreemptMode +REQUEUE +OFF" "and PreemptMode"
ok "a regeneration (label update)" regenerate
like "$(cval PreemptType) $(cval PreemptMode)" "^(preempt/none|\\(null\\)) OFF$" "LOST: the hand edit is gone after the regeneration (24.11 shows preempt/none as (null))"

# --- through the API
ok "mdcctl config set PreemptType=preempt/partition_prio PreemptMode=REQUEUE" \
	"$MDCCTL" --yes config set PreemptType=preempt/partition_prio PreemptMode=REQUEUE
req=$(grep '"method":"PATCH"' "$log" | tail -1)
is "$(jq -c '[.query.updateMask, .query.updateMode, .body.orchestrator_spec.slurm_spec.config]' <<<"$req")" \
	'["orchestrator_spec.slurm_spec.config","USER_ONLY",{"PreemptType":"preempt/partition_prio","PreemptMode":"REQUEUE"}]' \
	"sent as the config map with its mask, USER_ONLY"
wait_until 15 cval_is PreemptType preempt/partition_prio
is "$(cval PreemptType) $(cval PreemptMode)" "preempt/partition_prio REQUEUE" "live after the update"
is "$("$MS" show config | tail -n +2 | tr -s ' ')" \
	$'PreemptMode = REQUEUE\nPreemptType = preempt/partition_prio' "mdc-scontrol show config shows the managed values"
ok "another regeneration (label update)" regenerate
is "$(cval PreemptType) $(cval PreemptMode)" "preempt/partition_prio REQUEUE" "KEPT after the regeneration"
ok "slurm-lab restart" "$LAB_SCRIPT" restart "$LAB_DIR"
is "$(cval PreemptType) $(cval PreemptMode)" "preempt/partition_prio REQUEUE" "KEPT after a slurmctld restart"
is "$("$MDCCTL" drift 2>&1)" "no drift: the live slurmctld matches the managed spec" "nothing drifts"
