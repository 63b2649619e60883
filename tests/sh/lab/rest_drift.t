#!/usr/bin/env bash
# drift --remote: the partitions slurmrestd shows (callSlurmRestApi)
# compared with the managed spec, with no Slurm on PATH and no slurm.conf;
# it finds what the local drift finds for partitions (a runtime MaxTime and
# Hidden, a partition created at run time) and node runtime state (DRAIN),
# says plainly what it cannot see, and --adopt is refused with it.  Real slurmctld and slurmrestd.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

command -v slurmrestd >/dev/null || skip_all "slurmrestd is not installed (scripts/install-deps)"
lab_mdc_env --rest
plan 11
show_on_fail "$TEST_DIR/err"
R() { env SLURM_CONF=/nonexistent PATH=/nonexistent "$MDCCTL" "$@"; }
rows() { jq -c '[.drift[] | [.scope, .key, .live, .managed]] | sort' "$@"; }

out=$(R --remote drift --exit-code 2>"$TEST_DIR/err"); rc=$?
is "$rc $out" "0 no drift: the live slurmctld matches the managed spec" "a fresh cluster: no drift, exit 0"
like "$(cat "$TEST_DIR/err")" "note: drift --remote .* cannot see cluster keys, keys pending a restart, node keys, NodeSets" \
	"it says which kinds of drift it cannot see"
is "$(jq -r 'select(.path | endswith(":callSlurmRestApi")) | .body.path' "$log" | grep -c '/partitions$')" 1 \
	"the partitions were read through callSlurmRestApi"

# runtime changes the next regeneration would lose
scontrol update PartitionName=debug MaxTime=45 Hidden=YES
scontrol create PartitionName=rt Nodes="$host"
R --remote drift --exit-code >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 12 "--exit-code: 12 once settings drift"
R --remote drift --format json >"$TEST_DIR/remote.json" 2>"$TEST_DIR/err"
is "$(jq .count "$TEST_DIR/remote.json")" 3 "three drifts"
is "$(rows "$TEST_DIR/remote.json")" \
	'[["partition debug","Hidden","YES","NO"],["partition debug","MaxTime","45","UNLIMITED"],["partition rt","PartitionName","present","absent"]]' \
	"MaxTime (in minutes, as slurmrestd gives it), Hidden and the runtime partition"
# the local drift (scontrol) agrees on which settings drift
"$MDCCTL" drift --format json >"$TEST_DIR/local.json" 2>/dev/null
is "$(jq -c '[.drift[] | [.scope, .key]] | sort' "$TEST_DIR/remote.json")" \
	"$(jq -c '[.drift[] | [.scope, .key]] | sort' "$TEST_DIR/local.json")" "the local drift finds the same ones"
like "$(cat "$TEST_DIR/out")" "^3 runtime changes the next regeneration would lose" "the text report counts them"

# a drained node is runtime state, as the local drift says it
scontrol update NodeName="$host" State=DRAIN Reason=rest-drain
R --remote drift --format json >"$TEST_DIR/remote.json" 2>"$TEST_DIR/err"
like "$(jq -c '[.runtime_state[] | [.scope, .state, .reason]]' "$TEST_DIR/remote.json")" \
	"^\\[\\[\"node $host\",\"IDLE\\+DRAIN\",\"rest-drain \\[root@[0-9T:-]+\\]\"\\]\\]$" \
	"a drained node: runtime state with its reason, who and when"
"$MDCCTL" drift --format json >"$TEST_DIR/local.json" 2>/dev/null
is "$(jq -c '.runtime_state' "$TEST_DIR/remote.json")" "$(jq -c '.runtime_state' "$TEST_DIR/local.json")" \
	"the same as the local drift shows"
scontrol update NodeName="$host" State=RESUME

R --remote drift --adopt --yes >/dev/null 2>"$TEST_DIR/err"
is "$? $(grep -c 'does not go with --remote' "$TEST_DIR/err")" "2 1" "--adopt with --remote: usage error"
