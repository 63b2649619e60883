#!/usr/bin/env bash
# mdc-scontrol without a running slurmctld: the real emulator on loopback
# and a slurm.conf whose NodeSet lines map nodes to pools.  Checks the
# exact requests (--request-log), that bad input sends nothing, that a
# failed API write makes no live change, pass-through of other commands
# with the same arguments and exit code, and the show commands' output.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v scontrol >/dev/null || skip_all "scontrol is not installed (scripts/install-deps)"
command -v jq >/dev/null || skip_all "jq is not installed"
[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
plan 41

MS=$top_builddir/mdc-scontrol
export MDC_CONF=$TEST_DIR/mdc.conf	# no config file of the machine's
: >"$MDC_CONF"

# A slurm.conf only for parsing (scontrol reads it on every run; live
# updates fail fast with "connect failure"); scontrol runs are recorded.
emu_slurm_conf

emu_up
emu_create_cluster c1 >/dev/null || { echo "Bail out! cannot create the cluster"; exit 1; }
export MDC_ENDPOINT=$EMU_URL MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/c1
EMU_DIR_NEXT=$EMU_DIR	# restarts keep the state and the request log
patches() { grep -c '"method":"PATCH"' "$EMU_LOG"; }
last_patch() { grep '"method":"PATCH"' "$EMU_LOG" | tail -1; }

# --- pass-through: same arguments, same output, same exit code
out=$("$MS" show hostnames 'cpu-[0-1]' 2>&1)
is "$out" $'cpu-0\ncpu-1' "show hostnames runs the real scontrol"
is "$(tail -1 "$TEST_DIR/scontrol.log")" "show hostnames cpu-[0-1]" "with the same arguments"
"$MS" nosuchcommand >/dev/null 2>&1; rc=$?
scontrol nosuchcommand >/dev/null 2>&1; want=$?
is "$rc" "$want" "an unknown command exits with the real scontrol's code ($want)"
"$MS" -d update NodeName=cpu-0 State=DRAIN Reason=x >/dev/null 2>&1
is "$(tail -1 "$TEST_DIR/scontrol.log")" "-d update NodeName=cpu-0 State=DRAIN Reason=x" \
	"node state changes (and scontrol's own options) pass through untouched"
is "$(patches)" 0 "pass-through sends nothing to the API"

# --- pass-through during a reconfigure: a run slurmctld dropped unread is
# run again; a change that may have been applied (a timeout) is not
cat >"$TEST_DIR/flaky" <<'EOF'
#!/bin/sh
n=$(cat "$TEST_DIR/flaky.n" 2>/dev/null || echo 0)
echo $((n + 1)) >"$TEST_DIR/flaky.n"
[ "$n" -lt "$FLAKY_FAILS" ] && { echo "$FLAKY_MSG" >&2; exit 1; }
echo "ran $*"
EOF
chmod +x "$TEST_DIR/flaky"
flaky() {	# FAILS MESSAGE ARGS...: "EXIT|RUNS|STDOUT|STDERR"
	local fails=$1 msg=$2 out rc
	shift 2
	rm -f "$TEST_DIR/flaky.n"
	out=$(TEST_DIR=$TEST_DIR MDC_SCONTROL=$TEST_DIR/flaky FLAKY_FAILS=$fails FLAKY_MSG=$msg \
		"$MS" -Q "$@" 2>"$TEST_DIR/flaky.err"); rc=$?
	printf '%s|%s|%s|%s' "$rc" "$(cat "$TEST_DIR/flaky.n")" "$out" "$(cat "$TEST_DIR/flaky.err")"
}
zb="slurm_update error: Zero Bytes were transmitted or received"
to="slurm_update error: Socket timed out on send/recv operation"
is "$(flaky 1 "$zb" update nodename=cpu-0 state=resume)" "0|2|ran -Q update nodename=cpu-0 state=resume|" \
	"an update slurmctld dropped unread (Zero Bytes) is run again, once"
is "$(flaky 1 "$to" update nodename=cpu-0 state=resume)" "1|1||$to" \
	"an update that timed out (maybe applied) is not run again: scontrol's message and exit code"
is "$(flaky 1 "$to" show job 5)" "0|2|ran -Q show job 5|" "a show that timed out is asked again"
is "$(flaky 9 "$zb" -o show job 5)" "1|4||$zb" "at most three more tries, then scontrol's message and exit code"

# --help lists no option that is then refused
help=$("$MS" --help)
unlike "$help" '^  --async' "--help does not list --async as an option"
"$MS" --async update PartitionName=cpu MaxTime=5 >/dev/null 2>&1; rc=$?
is "$rc" "$EXIT_USAGE" "--async is refused, as --help says"

# --- bad input sends nothing and touches nothing
: >"$TEST_DIR/scontrol.log"
out=$("$MS" update PartitionName=cpu MaxTime=soon 2>&1); rc=$?
isnt "$rc" 0 "a bad MaxTime value fails"
like "$out" "invalid value MaxTime='soon'" "the error names the key and the value"
out=$("$MS" update partitionname=cpu MaxTimes=5 2>&1)
like "$out" "unknown key 'MaxTimes' \(did you mean 'MaxTime'\?\)" "a key scontrol does not take gets a suggestion"
out=$("$MS" update PartitionName=cpu Max=5 2>&1)
like "$out" "unknown key 'Max'" "a prefix shorter than scontrol's minimum is no key (MaxTime needs MaxT)"
out=$("$MS" update PartitionName=cpu Default=NO 2>&1)
like "$out" "always has one default partition" "Default=NO is refused with the way out"
out=$("$MS" update NodeName=cpu-0 Weight=5 2>&1)
like "$out" "name every node of pool 'cpu'" "a node update must cover its whole pool"
out=$("$MS" create PartitionName=x Nodes=zz9 2>&1)
like "$out" "node 'zz9' is in no node pool" "create refuses nodes outside the pools"
out=$("$MS" -M other update PartitionName=cpu MaxTime=5 2>&1); rc=$?
is "$rc:$out" "$EXIT_USAGE:mdc-scontrol: error: -M/--clusters names another cluster ('other'): a persistent update partition would reach only its live slurmctld; drop it, or use scontrol for a runtime-only change" \
	"scontrol's -M with a persistent command is a usage error, not a silent runtime change"
: >"$TEST_DIR/scontrol.log"
out=$("$MS" update PreemptType=preempt/qos 2>&1); rc=$?
is "$rc:$out" "$EXIT_REFUSED:mdc-scontrol: error: update PreemptType=preempt/qos: PreemptType is a cluster-wide slurm.conf setting, which scontrol cannot update: set it with 'mdcctl config set PreemptType=preempt/qos' (nothing was sent)" \
	"a cluster-wide key is refused with mdcctl config set, not scontrol's 'No valid entity'"
is "$(patches)" 0 "no bad command sent a PATCH"
is "$(grep -c . "$TEST_DIR/scontrol.log")" 0 "nor ran the real scontrol"
unlike "$(cat "$TEST_DIR/scontrol.log")" "^(update|create|delete)" "and none ran a live scontrol update"

# --- the API write fails: no live change, a clear error
emu_stop
emu_start --fault PATCH:500:1 >/dev/null ||
	{ echo "Bail out! emulator did not restart"; exit 1; }
export MDC_ENDPOINT=$EMU_URL
out=$("$MS" update PartitionName=cpu MaxTime=30 2>&1); rc=$?
isnt "$rc" 0 "an API failure fails the command"
like "$out" "not persisted, and the live slurmctld was left unchanged" "the error says nothing changed"
unlike "$(cat "$TEST_DIR/scontrol.log")" "^update" "the live slurmctld was not updated"
emu_stop
emu_start >/dev/null || { echo "Bail out! emulator did not restart"; exit 1; }
export MDC_ENDPOINT=$EMU_URL

# --- persisted: the exact request, then the live update (which fails here:
# no slurmctld), and the error says the change is kept
before=$(patches)
out=$("$MS" UPDATE PartitionName=cpu MaxTime=30 PreemptMode=requeue 2>&1); rc=$?
isnt "$rc" 0 "without a slurmctld the live update fails"
like "$out" "persisted through the managed API .* but the live update failed" \
	"and the error says the change is persisted"
is "$(patches)" $((before + 1)) "one PATCH"
req=$(last_patch)
is "$(jq -r '.query.updateMask + " " + .query.updateMode' <<<"$req")" \
	"orchestrator_spec.slurm_spec.partitions USER_ONLY" "mask names only partitions, mode USER_ONLY"
is "$(jq -c '.body.orchestrator_spec.slurm_spec.partitions' <<<"$req")" \
	'[{"id":"cpu","node_pool_ids":["cpu"],"config":{"MaxTime":"30","PreemptMode":"requeue"}}]' \
	"the complete partition list with the canonical keys"
is "$(grep '^update' "$TEST_DIR/scontrol.log")" "update PartitionName=cpu MaxTime=30 PreemptMode=requeue" \
	"the live update is the equivalent real scontrol command"

"$MS" -Q update NodeName='cpu-[0-1]' Weight=5 AvailableFeatures=fast >/dev/null 2>&1
req=$(last_patch)
is "$(jq -c '[.query.updateMask, .body.orchestrator_spec.slurm_spec.node_sets]' <<<"$req")" \
	'["orchestrator_spec.slurm_spec.node_sets",[{"node_pool_id":"cpu","config":{"Weight":"5","Features":"fast"}}]]' \
	"a node update persists through node_sets of the nodes' pool"

# --- show: the managed spec in scontrol's format
# (no slurmctld here: the spec's values, times as scontrol prints them)
out=$("$MS" show partition cpu 2>"$TEST_DIR/err")
is "$out" $'PartitionName=cpu\n   Nodes=cpu Default=YES MaxTime=00:30:00 PreemptMode=requeue\n   MdcManaged=Nodes,Default,MaxTime,PreemptMode MdcLive=NO' \
	"show partition prints the managed partition like scontrol (MaxTime=00:30:00, not 30)"
like "$(cat "$TEST_DIR/err")" "the live slurmctld did not answer .*: showing the managed spec only" \
	"and says the live slurmctld did not answer"
out=$("$MS" -o show partition 2>/dev/null)
is "$out" "PartitionName=cpu Nodes=cpu Default=YES MaxTime=00:30:00 PreemptMode=requeue MdcManaged=Nodes,Default,MaxTime,PreemptMode MdcLive=NO" "-o prints one line"
is "$("$MS" --one sho part 2>/dev/null)" "$out" "scontrol's abbreviations of the option, command and entity"
out=$("$MS" show nodeset)
is "$out" $'NodeSet=cpu\n   Nodes=cpu-[0-1] Weight=5 Features=fast' "show nodeset: nodes from slurm.conf, settings from node_sets"
"$top_builddir/mdcctl" --yes config set PreemptType=preempt/partition_prio PreemptMode=REQUEUE >/dev/null 2>&1
out=$("$MS" show config | tail -n +2)
is "$out" $'PreemptMode             = REQUEUE\nPreemptType             = preempt/partition_prio' \
	"show config prints the managed config like scontrol"

# --- the oracle: which words scontrol 22.05 takes as a partition or node
# key, asked of the real scontrol (it rejects an unknown key before it
# talks to slurmctld); mdc-scontrol must take exactly the same.  Without a
# cluster name mdc-scontrol stops right after reading the words, so
# nothing is sent anywhere.
unset MDC_CLUSTER
# takes ENTITY WORD: "key" when the tool reads WORD=1 as a key, else "no"
# (scontrol retries its controller for about a second: ask in parallel)
export MS
takes() {
	local ent=$1 w=$2 sc=key ms=key out
	out=$(scontrol update "$ent" "$w=1" 2>&1)
	[[ $out == *"not supported"* ]] && sc=no
	out=$("$MS" -Q update "$ent" "$w=1" 2>&1)
	[[ $out == *"unknown key"* ]] && ms=no
	[ "$sc" = "$ms" ] || echo "$w(scontrol:$sc,ours:$ms)"
}
export -f takes
bad=$(printf '%s\n' MaxT maxtime Max MaxTimes Pri Pr PriorityJ D De Default DefaultT Sh S St \
	QO QOS N T LLNX Roo Req Over OverS AllowG Alt Grace DefMemPerC DefMemPerCPU JobD MaxN \
	C Pa |
	xargs -P 8 -I{} bash -c 'takes PartitionName=cpu {}' | sort | tr '\n' ' ')
is "$bad" "" "partition keys: mdc-scontrol takes exactly the words scontrol takes"
bad=$(printf '%s\n' W F A Av Ava Act Gres C Co CpuBind S NodeA NodeH |
	xargs -P 8 -I{} bash -c 'takes NodeName=cpu-0 {}' | sort | tr '\n' ' ')
is "$bad" "" "node keys: mdc-scontrol takes exactly the words scontrol takes"
