#!/usr/bin/env bash
# On the managed lab, with the real scontrol as
# the oracle: every spelling scontrol accepts (part=, partitionname=,
# MaxT=, maxtime=, pri=...) means the same to mdc-scontrol, is persisted
# and survives a regeneration; partition State is a setting; node state is
# runtime and says so; a partition that holds a job is not deleted (nor
# renamed by plan) without --force and the job survives; destructive scope
# commands need --yes without a terminal and send nothing; messages say
# where a key belongs.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
lab_mdc_env
plan 58

pval() {
	local line
	line=$(scontrol show partition "$1" --oneliner 2>/dev/null) || { echo absent; return; }
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$line"
}
pval_is() { [ "$(pval "$1" "$2")" = "$3" ]; }
nval() { scontrol show node "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
nval_is() { [ "$(nval "$1" "$2")" = "$3" ]; }
patches() { grep -c '"method":"PATCH"' "$log"; }
last_patch() { grep '"method":"PATCH"' "$log" | tail -1; }
# the config map the last PATCH sent for partition $1
sent_conf() { jq -c --arg p "$1" '.body.orchestrator_spec.slurm_spec.partitions[] | select(.id == $p) | .config' <<<"$(last_patch)"; }
# settle: let the emulator's reload of the previous write land first
settle() { lab_wait_sync "$1" 60 || diag "no reload within 60 s"; }

# --- the oracle: the same words through scontrol, then mdc-scontrol
# oracle WORDS... -- KEY VALUE: scontrol's live effect is KEY=VALUE, and
# mdc-scontrol's words give the same live value and persist it
oracle() {
	local words=() key want syncs before
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	key=$2 want=$3
	scontrol update "${words[@]}" >/dev/null 2>&1
	is "$(pval debug "$key")" "$want" "scontrol ${words[*]}: $key=$want live (the oracle)"
	scontrol update PartitionName=debug "$key=$4" >/dev/null 2>&1	# back, runtime only
	syncs=$(lab_syncs)
	before=$(patches)
	"$MS" -Q update "${words[@]}"
	wait_until 10 pval_is debug "$key" "$want"
	is "$(pval debug "$key") $(($(patches) - before))" "$want 1" \
		"mdc-scontrol ${words[*]}: the same live value, one PATCH"
	settle "$syncs"
}
oracle part=debug MaxT=61 -- MaxTime 01:01:00 UNLIMITED
is "$(sent_conf debug)" '{"MaxTime":"61"}' "persisted under the canonical key"
oracle partitionname=debug maxtime=62 -- MaxTime 01:02:00 UNLIMITED
oracle PartitionName=debug pri=3 -- PriorityTier 3 1
is "$(sent_conf debug)" '{"MaxTime":"62","PriorityJobFactor":"3","PriorityTier":"3"}' \
	"Priority= is PriorityJobFactor and PriorityTier, as scontrol sets both"
oracle par=debug lln=y -- LLN YES NO
is "$(jq -r .LLN <<<"$(sent_conf debug)")" YES "the value word is spelt out (y -> YES)"

# --- State is a partition setting: persisted, kept by a regeneration
syncs=$(lab_syncs)
ok "mdc-scontrol u part=debug st=dr" "$MS" -Q u part=debug st=dr
is "$(jq -r .State <<<"$(sent_conf debug)")" DRAIN "State=DRAIN is persisted"
settle "$syncs"
syncs=$(lab_syncs)
ok "a regeneration (mdcctl labels set)" "$MDCCTL" --yes labels set abbrev=yes
settle "$syncs"
wait_until 10 pval_is debug State DRAIN
is "$(pval debug MaxTime) $(pval debug PriorityTier) $(pval debug LLN) $(pval debug State)" \
	"01:02:00 3 YES DRAIN" "KEPT after the regeneration: every abbreviated setting"
syncs=$(lab_syncs)
ok "mdc-scontrol update PartitionName=debug State=UP" "$MS" -Q update PartitionName=debug State=UP
settle "$syncs"
wait_until 10 pval_is debug State UP

# --- show: scontrol's values, marked
a=$("$MS" show part debug)
is "$a" "$("$MS" show partition debug)" "show part and show partition print the same"
like "$a" "MaxTime=01:02:00" "MaxTime as scontrol prints it, not 62"
like "$a" "MdcManaged=Nodes,Default,MaxTime,PriorityJobFactor,PriorityTier,LLN,State" \
	"the keys the spec holds are marked managed"
scontrol update PartitionName=debug MaxTime=99 >/dev/null
like "$("$MS" -o show partition debug)" "MdcLiveOnly=MaxTime$" \
	"a runtime change shows as live-only"
scontrol update PartitionName=debug MaxTime=62 >/dev/null

# --- node state is runtime: the real scontrol, with a note
out=$("$MS" update NodeName="$host" State=DRAIN Reason=abbrev 2>&1); rc=$?
is "$rc" 0 "node State=DRAIN runs"
like "$out" "note: NodeName=$host: node state .* is runtime" "and says it is runtime"
like "$(nval "$host" State)" "DRAIN" "the node is drained"
scontrol update NodeName="$host" State=RESUME

# --- Features: the live apply does not fail when the old active features
# are not among the new ones
syncs=$(lab_syncs)
ok "mdc-scontrol update NodeName=$host Features=aa" "$MS" -Q update NodeName="$host" Features=aa
settle "$syncs"
out=$("$MS" -Q update NodeName="$host" Features=bb 2>&1); rc=$?
is "$rc:$out" "0:" "changing Features to a disjoint set succeeds (no 'not subset' failure)"
wait_until 10 nval_is "$host" AvailableFeatures bb
is "$(nval "$host" AvailableFeatures) $(nval "$host" ActiveFeatures)" "bb bb" "both live"
settle "$syncs"

# --- a partition that holds a job
syncs=$(lab_syncs)
ok "mdc-scontrol create part=short Nodes=$host" "$MS" -Q create part=short Nodes="$host"
settle "$syncs"
wait_until 10 pval_is short State UP
job=$(sbatch --parsable --hold -p short -o /dev/null --wrap true)
like "$job" '^[0-9]+$' "a held (pending) job in short"
before=$(patches)
out=$("$MS" delete PartitionName=short 2>&1); rc=$?
isnt "$rc" 0 "mdc-scontrol delete of a partition with a job fails"
like "$out" "partition 'short' still holds jobs $job \(PENDING\).*--force" "naming the job and --force"
out=$("$MDCCTL" --yes partition delete short 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "mdcctl partition delete is refused too (exit $EXIT_REFUSED)"
like "$out" "still holds jobs $job" "naming the job"
sed 's/^PartitionName=short /PartitionName=short2 /' "$SLURM_CONF" >"$TEST_DIR/renamed.conf"
out=$("$MDCCTL" plan "$TEST_DIR/renamed.conf" 2>&1); rc=$?
isnt "$rc" 0 "plan of a rename of the busy partition is refused"
like "$out" "still holds jobs $job" "and lists the job"
is "$(patches)" "$before" "nothing was sent"
is "$(squeue -h -j "$job" -o '%P %T')" "short PENDING" "the job survives, pending in short"
scancel "$job"
wait_until 10 sh -c "! squeue -h -j $job -o %T | grep -q ."

# --- destructive commands without a terminal need --yes
before=$(patches)
out=$("$MDCCTL" partition delete short 2>&1 </dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "partition delete without --yes and without a terminal is refused"
like "$out" "needs a confirmation, and there is no terminal to ask on: give --yes; nothing was sent" \
	"saying how to go on"
out=$("$MDCCTL" nodeset unset compute Features 2>&1 </dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "nodeset unset likewise"
out=$("$MDCCTL" partition unset debug LLN 2>&1 </dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "partition unset likewise"
is "$(patches)" "$before" "none of them sent anything"
syncs=$(lab_syncs)
ok "mdc-scontrol delete partition short (no job left)" "$MS" -Q delete partition short
settle "$syncs"
is "$(pval short State)" absent "short is gone"

# --- a pool scaled down while a job runs on its node: the lab's node is
# the base's ($host), not one the renderer names (compute-K), so it stays:
# the check reads the live NodeSet and lets the change through, and the
# job keeps running through the restart the node count asks for
job=$(sbatch --parsable -p debug -o /dev/null --wrap "sleep 600")
wait_until 30 sh -c "squeue -h -j $job -o %T | grep -q RUNNING" || diag "job $job did not start"
syncs=$(lab_syncs)
ok "mdcctl nodepool scale compute --max 3" "$MDCCTL" --yes nodepool scale compute --max 3
settle "$syncs"
syncs=$(lab_syncs)
out=$("$MDCCTL" --yes nodepool scale compute --max 1 2>&1); rc=$?
is "$rc" 0 "scaling back down with a job on the base's node is not refused"
unlike "$out" "loses the nodes|whether jobs run" "no job named, no unknown check"
settle "$syncs"
is "$(squeue -h -j "$job" -o %T)" RUNNING "the job still runs"
scancel "$job"

# --- messages
out=$("$MDCCTL" config set MaxTime=60 2>&1); rc=$?
is "$rc:$out" "$EXIT_INVAL:mdcctl: error: MaxTime is a partition key, not a cluster one: mdcctl partition update PARTITION MaxTime=60" \
	"a key in the wrong scope says where it belongs"
out=$("$MDCCTL" partition delete --help); rc=$?
like "$rc:$out" "^0:usage: mdcctl partition" "--help after a subcommand prints its usage, exit 0"

# --- --force: the user accepts that the jobs end
syncs=$(lab_syncs)
# Nodes=all, as Slurm reads it (any case): every node pool
ok "mdc-scontrol create PartitionName=gone Nodes=all" "$MS" -Q create PartitionName=gone Nodes=all
is "$(last_patch | jq -c '.body.orchestrator_spec.slurm_spec.partitions[] | select(.id == "gone") | .node_pool_ids')" \
	'["compute"]' "Nodes=all was sent as every node pool"
settle "$syncs"
wait_until 10 pval_is gone State UP
is "$(pval gone Nodes)" "$host" "slurmctld has every node in it"
job=$(sbatch --parsable --hold -p gone -o /dev/null --wrap true)
syncs=$(lab_syncs)
before=$(patches)
out=$("$MS" --force delete PartitionName=gone 2>&1); rc=$?
is "$rc" 0 "delete --force of a partition with a job succeeds"
like "$out" "warning: partition 'gone' is removed with its jobs $job \(PENDING\) \(--force\)" \
	"and warns that the job ends"
is "$(($(patches) - before))" 1 "one PATCH"
settle "$syncs"
wait_until 20 pval_is gone State absent
is "$(pval gone State)" absent "the regeneration removed the partition"
scancel "$job" 2>/dev/null

# --- show config: the live slurmctld's spelling of the spec's value
syncs=$(lab_syncs)
ok "mdcctl config set KillWait=45" "$MDCCTL" --yes config set KillWait=45
settle "$syncs"
wait_until 10 sh -c 'scontrol show config | grep -q "^KillWait *= 45 sec"'
is "$("$MS" sho c | grep '^KillWait')" "KillWait                = 45 sec" \
	"show config (sho c) prints the value as scontrol does"
