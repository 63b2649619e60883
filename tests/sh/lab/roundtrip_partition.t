#!/usr/bin/env bash
# The promise, side by side on a real slurmctld managed by the emulator:
# what `scontrol update|create` does is gone after the service regenerates
# slurm.conf, what `mdc-scontrol` does survives that regeneration and a
# slurmctld restart.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
lab_mdc_env
plan 22

# pval PART KEY: the live slurmctld's value ("absent" without the partition)
pval() {
	local line
	line=$(scontrol show partition "$1" --oneliner 2>/dev/null) || { echo absent; return; }
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$line"
}
# for wait_until, which runs its command again on every poll
pval_is() { [ "$(pval "$1" "$2")" = "$3" ]; }
# pvals PART KEY KEY: two values from one read (no reload in between)
pvals() {
	local line
	line=$(scontrol show partition "$1" --oneliner 2>/dev/null) || { echo absent; return; }
	echo "$(sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$line") $(sed -n "s/.* $3=\([^ ]*\).*/\1/p" <<<"$line")"
}
pvals_are() { [ "$(pvals "$1" "$2" "$3")" = "$4" ]; }
last_patch() { grep '"method":"PATCH"' "$log" | tail -1; }

# --- the two ways of changing a partition (mdc-scontrol first: any
# regeneration, its own included, drops runtime changes)
syncs=$(lab_syncs)
ok "mdc-scontrol update PartitionName=debug MaxTime=45" "$MS" update PartitionName=debug MaxTime=45
# (a reload of the emulator may be running: slurmctld answers "no such
# partition" while it rebuilds them, so read again for a few seconds)
if wait_until 10 pval_is debug MaxTime 00:45:00; then pass "the admin sees the new MaxTime at once"
else fail "the admin sees the new MaxTime at once" "got: $(pval debug MaxTime)"; fi
req=$(last_patch)
is "$(jq -r '.query.updateMask + " " + .query.updateMode' <<<"$req")" \
	"orchestrator_spec.slurm_spec.partitions USER_ONLY" "it was persisted with the partitions mask, USER_ONLY"
# the emulator reloads slurmctld after each write, on its own schedule; a
# reload of the file as the previous write left it would drop the next
# change until its own reload: let each land before the next step
lab_wait_sync "$syncs" 60 || diag "the lab did not report the first reload in 60 s"
syncs=$(lab_syncs)
ok "mdc-scontrol create PartitionName=long Nodes=$host MaxTime=120 PriorityTier=3" \
	"$MS" create PartitionName=long Nodes="$host" MaxTime=120 PriorityTier=3
if wait_until 10 pvals_are long MaxTime PriorityTier "02:00:00 3"; then pass "the created partition is live at once"
else fail "the created partition is live at once" "got: $(pvals long MaxTime PriorityTier)"; fi
lab_wait_sync "$syncs" 60 || diag "the lab did not report the second reload in 60 s"
ok "scontrol update PartitionName=debug PriorityTier=9 (runtime only)" \
	scontrol update PartitionName=debug PriorityTier=9
is "$(pval debug PriorityTier)" 9 "the runtime change is live too"

ok "scontrol create PartitionName=rt Nodes=$host (runtime only)" \
	scontrol create PartitionName=rt Nodes="$host"

# --- drift sees exactly the runtime changes
out=$("$MDCCTL" --format json drift 2>&1)
is "$(jq -c '[.drift[] | [.scope, .key, .live, .managed]]' <<<"$out")" \
	'[["partition debug","PriorityTier","9","1"],["partition rt","PartitionName","present","absent"]]' \
	"mdcctl drift lists the two runtime changes and nothing else"

# --- a regeneration triggered by an unrelated change (a label)
ok "mdcctl labels set round=trip" "$MDCCTL" --yes labels set round=trip
is "$(jq -r .query.updateMask <<<"$(last_patch)")" labels "the label update names only labels"
wait_until 30 pval_is debug PriorityTier 1
is "$(pval debug PriorityTier)" 1 "LOST: scontrol's PriorityTier=9 is gone after the regeneration"
is "$(pval rt MaxTime)" absent "LOST: scontrol's partition rt is gone"
is "$(pval debug MaxTime)" 00:45:00 "KEPT: mdc-scontrol's MaxTime=45 survived the regeneration"
is "$(pval long MaxTime) $(pval long PriorityTier)" "02:00:00 3" \
	"KEPT: mdc-scontrol's partition long survived the regeneration"
like "$(cat "$SLURM_CONF")" "PartitionName=long Nodes=compute" "the regenerated slurm.conf holds it"

# --- a slurmctld restart reads only slurm.conf
ok "slurm-lab restart" "$LAB_SCRIPT" restart "$LAB_DIR"
wait_until 30 scontrol ping
is "$(pval debug MaxTime)" 00:45:00 "KEPT: MaxTime=45 after a slurmctld restart"
is "$(pval long PriorityTier)" 3 "KEPT: partition long after a slurmctld restart"

# --- delete goes the same way
ok "mdc-scontrol delete PartitionName=long" "$MS" delete PartitionName=long
is "$(pval long MaxTime)" absent "the deleted partition is gone from the live slurmctld"
out=$("$MDCCTL" drift 2>&1)
is "$out" "no drift: the live slurmctld matches the managed spec" "and nothing drifts"
