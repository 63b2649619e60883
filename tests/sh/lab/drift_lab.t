#!/usr/bin/env bash
# mdcctl drift on the managed lab, three ways (the spec rendered, the live
# slurm.conf, the live slurmctld): a key added by hand to
# the live file is seen by drift and proposed by plan; scontrol's node
# Weight and partition State are settings; a drained node is runtime
# state, reported apart and never adopted; --adopt shows the change set,
# refuses without a terminal or --yes, has --dry-run and --key, and what
# it adopts survives a regeneration.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_mdc_env --lro-seconds 0
plan 47
patches() { grep -c '"method":"PATCH"' "$log"; }
pval() { scontrol show partition "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
nval() { scontrol show node "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
cval() { scontrol show config | sed -n "s/^$1 *= //p"; }
cval_is() { [ "$(cval "$1")" = "$2" ]; }
pval_is() { [ "$(pval "$1" "$2")" = "$3" ]; }
nval_is() { [ "$(nval "$1" "$2")" = "$3" ]; }
rows() { "$MDCCTL" --format json drift | jq -c "[.$1[] | [.scope, .key, .live // .state, .managed // .reason, .source // null]]"; }

is "$("$MDCCTL" drift)" "no drift: the live slurmctld matches the managed spec" "a fresh lab has no drift"
"$MDCCTL" drift --exit-code >/dev/null
is "$?" 0 "drift --exit-code: 0 without drift"

# --- a global key added by hand to the live file
echo MinJobAge=60 >>"$SLURM_CONF"
ok "scontrol reconfigure after adding MinJobAge=60 to slurm.conf" scontrol reconfigure
wait_until 15 cval_is MinJobAge "60 sec"
is "$(rows drift)" '[["config","MinJobAge","60","(unset)","slurm.conf+slurmctld"]]' \
	"drift sees the hand-added key in the file and in slurmctld"
out=$("$MDCCTL" plan 2>&1)
like "$out" '^  \+ config MinJobAge: \(absent\) -> 60$' "plan with no FILE proposes it"
like "$out" '^updateMask: orchestrator_spec.slurm_spec.config$' "as a config change"
out=$("$MDCCTL" drift --exit-code 2>&1)
is "$?" 12 "drift --exit-code: 12 with settings drift"
like "$out" '^config +MinJobAge +60 ' "and the report as without it"

# --- runtime changes: node Weight, partition State, a drained node
ok "scontrol update NodeName=$host Weight=99" scontrol update NodeName="$host" Weight=99
ok "scontrol update PartitionName=debug State=DOWN" scontrol update PartitionName=debug State=DOWN
ok "scontrol update NodeName=$host State=DRAIN Reason=disk" \
	scontrol update NodeName="$host" State=DRAIN Reason=disk
is "$(rows drift)" "$(printf '%s' '[["config","MinJobAge","60","(unset)","slurm.conf+slurmctld"],' \
	'["partition debug","State","DOWN","UP","slurmctld"],' \
	"[\"node $host\",\"Weight\",\"99\",\"1\",\"slurmctld\"]]")" \
	"drift lists the key, the partition State and the node Weight as settings"
like "$(rows runtime_state)" "^\\[\\[\"node $host\",\"State\",\"IDLE\\+DRAIN\",\"disk( \\[[^]]*\\])?\",null\\]\\]\$" \
	"the drained node is runtime state, apart"
out=$("$MDCCTL" drift)
like "$out" "^node $host +Weight +99 +1 +slurmctld\$" "text: the node Weight row"
like "$out" '^runtime state \(not settings: kept by slurmctld, never adopted\)$' "text: runtime state has its own section"

# --- --adopt without a terminal or --yes: refused, nothing sent
before=$(patches)
out=$("$MDCCTL" drift --adopt </dev/null 2>&1)
is "$?" "$EXIT_REFUSED" "--adopt without a terminal and without --yes is refused (exit $EXIT_REFUSED)"
like "$out" "^mdcctl: error: drift --adopt: not adopted: stdin is not a terminal, give --yes" "and says why"
like "$out" '^Changes \(3\):$' "after showing the change set"
is "$(patches)" "$before" "nothing was sent"

# --- --dry-run and --key
out=$("$MDCCTL" --yes drift --adopt --dry-run --key "NodeSet=compute:Weight" 2>"$TEST_DIR/err")
is "$?" 0 "--adopt --dry-run --key NodeSet=compute:Weight exits 0"
like "$out" '^  \+ nodeset compute: \(absent\) -> Weight=99$' "it shows the pool's node_sets change"
unlike "$out" 'MinJobAge|State' "and only the chosen key"
like "$(cat "$TEST_DIR/err")" "^mdcctl: warning: this update regenerates slurm.conf: 2 runtime changes not adopted are lost then: config MinJobAge, partition debug State\$" \
	"it warns that the changes left out would be lost"
like "$out" '^dry run: nothing was sent$' "and sends nothing"
is "$(patches)" "$before" "nothing was sent for the dry run"
out=$("$MDCCTL" --yes drift --adopt --key PartitionName=debug:MaxTime 2>&1)
is "$?" "$EXIT_USAGE" "--key naming no drift is a usage error"
like "$out" "--key 'PartitionName=debug:MaxTime' names no drift" "naming the key"
out=$("$MDCCTL" --yes drift --adopt --key "NodeName=$host:State" 2>&1)
isnt "$?" 0 "runtime state cannot be chosen"
is "$(patches)" "$before" "nothing was sent for the bad keys"

n=$(lab_syncs)
out=$("$MDCCTL" --yes drift --adopt --key MinJobAge --key PartitionName=debug:State 2>&1)
is "$?" 0 "--yes drift --adopt --key MinJobAge --key PartitionName=debug:State"
like "$out" "^mdcctl: warning: this update regenerates slurm.conf: 1 runtime change not adopted is lost then: node $host Weight\$" \
	"it warns that the change left out is lost"
req=$(grep '"method":"PATCH"' "$log" | tail -1)
is "$(jq -c '[(.query.updateMask | split(",") | sort), .body.orchestrator_spec.slurm_spec.config, .body.orchestrator_spec.slurm_spec.partitions]' <<<"$req")" \
	'[["orchestrator_spec.slurm_spec.config","orchestrator_spec.slurm_spec.partitions"],{"MinJobAge":"60"},[{"id":"debug","node_pool_ids":["compute"],"config":{"State":"DOWN"}}]]' \
	"it sent the chosen key and partition State, nothing else"
lab_wait_sync "$n" 60
wait_until 15 nval_is "$host" Weight 1
is "$(nval "$host" Weight)" 1 "LOST as warned: the Weight left out is gone after the regeneration"
ok "scontrol update NodeName=$host Weight=99 again" scontrol update NodeName="$host" Weight=99
ok "--yes drift --adopt (the rest)" "$MDCCTL" --yes drift --adopt
req=$(grep '"method":"PATCH"' "$log" | tail -1)
is "$(jq -c '[.query.updateMask, .body.orchestrator_spec.slurm_spec.node_sets]' <<<"$req")" \
	'["orchestrator_spec.slurm_spec.node_sets",[{"node_pool_id":"compute","config":{"Weight":"99"}}]]' \
	"the node Weight is adopted as the compute pool's node_sets"

# --- a regeneration keeps what was adopted, and the drain
n=$(lab_syncs)
ok "a regeneration (label update)" "$MDCCTL" --yes labels set "regen=1"
lab_wait_sync "$n" 60
is "$(cval MinJobAge) $(pval debug State) $(nval "$host" Weight)" "60 sec DOWN 99" \
	"MinJobAge, State=DOWN and Weight=99 survived it"
like "$(nval "$host" State)" DRAIN "the drain is kept by slurmctld"
out=$("$MDCCTL" drift)
like "$out" "^no drift: the live slurmctld matches the managed spec\$" "no settings drift is left"
like "$out" "^node $host +IDLE\\+DRAIN +disk" "the drained node is still reported as runtime state"
"$MDCCTL" drift --exit-code >/dev/null
is "$?" 0 "drift --exit-code: runtime state alone is not drift (0)"
out=$("$MDCCTL" --yes drift --adopt 2>&1)
like "$out" "^no drift: nothing to adopt\$" "--adopt has nothing to adopt"
ok "scontrol update NodeName=$host State=RESUME" scontrol update NodeName="$host" State=RESUME
wait_until 30 nval_is "$host" State IDLE
n=$(lab_syncs)
ok "mdc-scontrol update PartitionName=debug AllowGroups= (Slurm's reset to ALL)" \
	"$MS" -Q update PartitionName=debug AllowGroups=
lab_wait_sync "$n" 60
is "$(pval debug AllowGroups)" ALL "slurmctld shows AllowGroups=ALL"
is "$("$MDCCTL" drift)" "no drift: the live slurmctld matches the managed spec" "nothing drifts at the end"
