#!/usr/bin/env bash
# mdc-scontrol and `mdcctl drift` on the managed lab: drift lists the
# runtime changes a regeneration would lose and --adopt persists them;
# a node-pool setting (Weight, Features) goes through node_sets and stays;
# runtime commands reach the real slurmctld.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
lab_mdc_env
plan 21

pval() { scontrol show partition "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
nval() { scontrol show node "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
pval_is() { [ "$(pval "$1" "$2")" = "$3" ]; }
nval_is() { [ "$(nval "$1" "$2")" = "$3" ]; }
patches() { grep -c '"method":"PATCH"' "$log"; }

# --- runtime pass-through on the real slurmctld
is "$("$MS" ping)" "$(scontrol ping)" "mdc-scontrol ping is scontrol ping"
job=$(sbatch --parsable -o /dev/null --wrap 'sleep 30') || job=
like "$job" '^[0-9]+$' "a job to look at"
like "$("$MS" show job "$job")" "JobId=$job JobName=wrap" "show job passes through"
ok "update JobId=... TimeLimit=5 passes through" "$MS" update JobId="$job" TimeLimit=5
like "$(scontrol show job "$job")" "TimeLimit=00:05:00" "the job's runtime change reached slurmctld"
scancel "$job" 2>/dev/null
# mdc-scontrol(1): show config KEY is the real scontrol's, which (22.05)
# ignores KEY and prints every line
n_all=$(scontrol show config | grep -c ' = ')
n_key=$("$MS" show config SlurmctldPort | grep -c ' = ')
ok "show config KEY prints the whole live configuration ($n_key lines, $n_all without KEY)" \
	test "$n_key" -gt 20 -a "$n_key" -eq "$n_all"

# --- drift: the runtime changes, in text and JSON
out=$("$MDCCTL" drift)
is "$out" "no drift: the live slurmctld matches the managed spec" "a fresh lab has no drift"
ok "scontrol update PartitionName=debug MaxTime=30 PriorityTier=4" \
	scontrol update PartitionName=debug MaxTime=30 PriorityTier=4
out=$("$MDCCTL" drift)
is "$out" "$(printf '%-24s %-20s %-20s %-20s %s\n' SCOPE KEY LIVE MANAGED SOURCE \
	'partition debug' MaxTime 00:30:00 UNLIMITED slurmctld 'partition debug' PriorityTier 4 1 slurmctld)
2 runtime changes the next regeneration would lose (mdcctl drift --adopt persists them)" \
	"drift lists each runtime change with live and managed values"
before=$(patches)
is "$("$MDCCTL" drift --format json | jq -c '[.count, [.drift[].key]]')" '[2,["MaxTime","PriorityTier"]]' \
	"drift --format json"
is "$(patches)" "$before" "drift alone sends nothing"

ok "mdcctl drift --adopt" "$MDCCTL" --yes drift --adopt
req=$(grep '"method":"PATCH"' "$log" | tail -1)
is "$(jq -c '[.query.updateMask, .query.updateMode, .body.orchestrator_spec.slurm_spec.partitions]' <<<"$req")" \
	'["orchestrator_spec.slurm_spec.partitions","USER_ONLY",[{"id":"debug","node_pool_ids":["compute"],"config":{"MaxTime":"00:30:00","PriorityTier":"4"}}]]' \
	"--adopt persists them with the partitions mask, USER_ONLY"
is "$("$MDCCTL" drift 2>&1)" "no drift: the live slurmctld matches the managed spec" "after --adopt nothing drifts"
"$LAB_SCRIPT" restart "$LAB_DIR" >/dev/null 2>&1
is "$(pval debug MaxTime) $(pval debug PriorityTier)" "00:30:00 4" "the adopted values survive a restart"

# --- node-pool settings through node_sets
ok "mdc-scontrol update NodeName=$host Weight=7 Features=fast" \
	"$MS" update NodeName="$host" Weight=7 Features=fast
req=$(grep '"method":"PATCH"' "$log" | tail -1)
is "$(jq -c '[.query.updateMask, .body.orchestrator_spec.slurm_spec.node_sets]' <<<"$req")" \
	'["orchestrator_spec.slurm_spec.node_sets",[{"node_pool_id":"compute","config":{"Weight":"7","Features":"fast"}}]]' \
	"persisted as the compute pool's node_sets"
wait_until 30 nval_is "$host" Weight 7
is "$(nval "$host" Weight) $(nval "$host" AvailableFeatures)" "7 fast" "live on the node"
like "$(grep "^NodeName=$host " "$SLURM_CONF")" "Features=fast Weight=7|Weight=7 Features=fast" \
	"the regenerated NodeName line carries them"
"$LAB_SCRIPT" restart "$LAB_DIR" >/dev/null 2>&1
is "$(nval "$host" Weight) $(nval "$host" AvailableFeatures)" "7 fast" "KEPT after a slurmctld restart"
is "$("$MS" show nodeset compute)" $'NodeSet=compute\n   Nodes='"$host"' Weight=7 Features=fast' \
	"show nodeset shows the pool's nodes and settings"
