#!/usr/bin/env bash
# `mdcctl update FILE --update-mask` is the safe write of every command
# (mdc_update_run): it waits while the cluster is being created or
# updated, honours --no-wait and --timeout, and Ctrl-C stops it cleanly
# before the PATCH (nothing sent) and after it (the operation continues,
# nothing is resent).  mdc-scontrol takes the same options and, stopped
# after its PATCH, says the change was sent and leaves the live slurmctld
# alone.  Operations are held, or last 600 s (--lro-seconds), so no test
# races the clock; what the emulator received is checked each time.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
plan 34
export MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL MDC_CLUSTER
M() { "$top_builddir/mdcctl" "$@"; }
hold() {
	emu_curl -X POST -H 'Content-Type: application/json' -d "{\"hold\": $1}" \
		"$EMU_URL/emulator/v1/operations:hold" >/dev/null
}
# requests to cluster $1 (its id): METHOD count
count() { jq -r --arg p "/v1beta1/$EMU_PARENT/modelDevelopmentClusters/$1" --arg m "$2" \
	'select(.method == $m and .path == $p) | .method' "$EMU_LOG" | wc -l | tr -d ' '; }
# wait_until re-runs a command with its arguments expanded once: a function
gets_at_least() { [ "$(count "$1" GET)" -ge "$2" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# interrupt PID as Ctrl-C does; a process that does not stop within 30 s
# is killed (and the test fails on its exit status, not by hanging)
interrupt() {
	kill -INT "$1"
	wait_until 30 gone "$1" || kill -KILL "$1"
	wait "$1"
}
labels() { emu_curl "$EMU_CLUSTERS/$1" | jq -c .labels; }
printf '{"labels": {"owner": "hpc"}}\n' >"$TEST_DIR/raw.json"

emu_start || skip_all "mdc-emulator did not start"
export MDC_ENDPOINT=$EMU_URL
for id in c1 c3 c4 c5 c6; do
	emu_create_cluster "$id" >/dev/null || skip_all "cannot create cluster $id"
done
C() { printf '%s/modelDevelopmentClusters/%s' "$EMU_PARENT" "$1"; }

# --- a cluster being created: update waits for it -----------------------------------
hold true
emu_standard_cluster >"$TEST_DIR/c2.json"
M --cluster "$(C c2)" --async create "$TEST_DIR/c2.json" >/dev/null
is "$(emu_curl "$EMU_CLUSTERS/c2" | jq -r .state)" PROVISIONING "a held create leaves the cluster PROVISIONING"
: >"$EMU_LOG"
"$top_builddir/mdcctl" --cluster "$(C c2)" update "$TEST_DIR/raw.json" --update-mask labels >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
pid=$!
at_exit "kill $pid 2>/dev/null"
ok "update polls the cluster while it is being created" wait_until 30 gets_at_least c2 2
is "$(count c2 PATCH)" 0 "and sends no PATCH meanwhile"
hold false
wait_until 30 gone "$pid" || kill -KILL "$pid"
wait "$pid"; rc=$?
is "$rc" "$EXIT_OK" "update exits 0 once the cluster is created and its own operation is done"
is "$(count c2 PATCH)" 1 "one PATCH, after the creation"
is "$(labels c2)" '{"owner":"hpc"}' "the masked labels were replaced"
like "$(cat "$TEST_DIR/out")" "update: updated" "and it says so"

# --- busy: --no-wait, and Ctrl-C before the PATCH ----------------------------------------
hold true
M --cluster "$(C c1)" --async labels set env=busy >/dev/null
: >"$EMU_LOG"
err=$(M --cluster "$(C c1)" --no-wait update "$TEST_DIR/raw.json" --update-mask labels 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_CONFLICT" "--no-wait on an UPDATING cluster exits $EXIT_CONFLICT"
like "$err" "is UPDATING; try again later" "and says why"
"$top_builddir/mdcctl" --cluster "$(C c1)" update "$TEST_DIR/raw.json" --update-mask labels >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
pid=$!
at_exit "kill $pid 2>/dev/null"
wait_until 30 gets_at_least c1 3
interrupt "$pid"; rc=$?
is "$rc" "$EXIT_INTERRUPTED" "Ctrl-C while waiting for the busy cluster exits $EXIT_INTERRUPTED"
like "$(cat "$TEST_DIR/err")" "interrupted.*; nothing was sent$" \
	"and says nothing was sent"
is "$(count c1 PATCH)" 0 "no PATCH went out"
hold false

# --- operations of 600 s: --timeout and Ctrl-C after the PATCH --------------------------
emu_stop
EMU_DIR_NEXT=$EMU_DIR EMU_LRO_SECONDS=600 emu_start || { echo "Bail out! emulator did not restart"; exit 1; }
export MDC_ENDPOINT=$EMU_URL
: >"$EMU_LOG"
err=$(M --cluster "$(C c3)" --timeout 1 update "$TEST_DIR/raw.json" --update-mask labels 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_TIMEOUT" "an operation longer than --timeout exits $EXIT_TIMEOUT"
like "$err" "still running after 1 s; it continues: wait with 'mdcctl operations wait projects/" \
	"and says how to go on waiting"
is "$(count c3 PATCH)" 1 "one PATCH, not resent"
op=$(jq -r 'select(.method == "GET" and (.path | startswith("/v1/"))) | .path' "$EMU_LOG" | sort -u)
like "$op" "^/v1/projects/[0-9]+/locations/us-central1/operations/[0-9]+$" "the operation was polled"
is "$(emu_curl "$EMU_CLUSTERS/c3" | jq -r .state)" UPDATING "the cluster is still UPDATING"

: >"$EMU_LOG"
"$top_builddir/mdcctl" --cluster "$(C c4)" update "$TEST_DIR/raw.json" --update-mask labels >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
pid=$!
at_exit "kill $pid 2>/dev/null"
# its PATCH went out and it polls: its handler is in place
wait_until 30 grep -q '"/v1/projects' "$EMU_LOG"
interrupt "$pid"; rc=$?
is "$rc" "$EXIT_INTERRUPTED" "Ctrl-C while waiting for the operation exits $EXIT_INTERRUPTED"
like "$(cat "$TEST_DIR/err")" "stopped waiting; operation '.*' continues: resume with 'mdcctl operations wait " \
	"and says how to resume"
is "$(count c4 PATCH)" 1 "one PATCH, not resent"
unlike "$(cat "$TEST_DIR/out")" "updated" "and no 'updated'"

# --- mdc-scontrol: the same options, the same Ctrl-C ----------------------------------------
if ! command -v scontrol >/dev/null || [ ! -x "$top_builddir/mdc-scontrol" ]; then
	for i in $(seq 13); do skip "mdc-scontrol" "scontrol is not installed or mdc-scontrol not built"; done
	exit 0
fi
MS=$top_builddir/mdc-scontrol
port=$(free_port)
cat >"$TEST_DIR/slurm.conf" <<EOF2
ClusterName=t
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
MessageTimeout=2
NodeName=cpu-[0-1] CPUs=1 State=FUTURE
NodeSet=cpu Nodes=cpu-[0-1]
PartitionName=cpu Nodes=cpu Default=YES State=UP
EOF2
export SLURM_CONF=$TEST_DIR/slurm.conf
cat >"$TEST_DIR/scontrol" <<EOF2
#!/bin/sh
printf '%s\n' "\$*" >>"$TEST_DIR/scontrol.log"
exec $(command -v scontrol) "\$@"
EOF2
chmod +x "$TEST_DIR/scontrol"
export MDC_SCONTROL=$TEST_DIR/scontrol
: >"$TEST_DIR/scontrol.log"

err=$("$MS" --timeout soon update PartitionName=cpu MaxTime=30 2>&1); rc=$?
is "$rc" "$EXIT_USAGE" "mdc-scontrol --timeout takes seconds, as mdcctl's does"
like "$err" "--timeout 'soon': give seconds, > 0" "with mdcctl's message"
err=$("$MS" --async update PartitionName=cpu MaxTime=30 2>&1); rc=$?
is "$rc" "$EXIT_USAGE" "mdc-scontrol refuses --async"
like "$err" "live slurmctld is changed after the operation" "and says why"
like "$("$MS" --help)" "^  --timeout SECONDS +how long to wait for an operation" "its --help lists the shared update options"

: >"$EMU_LOG"
err=$(MDC_CLUSTER=$(C c5) "$MS" --timeout 1 update PartitionName=cpu MaxTime=30 2>&1); rc=$?
is "$rc" "$EXIT_TIMEOUT" "mdc-scontrol --timeout 1 on a 600 s operation exits $EXIT_TIMEOUT"
like "$err" "the change was sent to the managed API \(operation projects/.*\) but not seen through; the live slurmctld was left unchanged" \
	"and says the change was sent and the live slurmctld left alone"
is "$(count c5 PATCH)" 1 "one PATCH"
is "$(grep -c '^update' "$TEST_DIR/scontrol.log")" 0 "no live update ran"

: >"$EMU_LOG"
MDC_CLUSTER=$(C c6) "$MS" update PartitionName=cpu MaxTime=30 >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
pid=$!
at_exit "kill $pid 2>/dev/null"
wait_until 30 grep -q '"/v1/projects' "$EMU_LOG"
interrupt "$pid"; rc=$?
is "$rc" "$EXIT_INTERRUPTED" "Ctrl-C after mdc-scontrol's PATCH exits $EXIT_INTERRUPTED"
like "$(cat "$TEST_DIR/err")" "the change was sent to the managed API .* the live slurmctld was left unchanged" \
	"and says the change was sent and the live slurmctld left alone"
is "$(count c6 PATCH)" 1 "one PATCH, not resent"
is "$(grep -c '^update' "$TEST_DIR/scontrol.log")" 0 "no live update ran"
