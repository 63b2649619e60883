#!/usr/bin/env bash
# The job wait policy enforced by mdcd's own loop (JobWaitEnforceInterval
# in mdc.conf), on a real Slurm with both plugins: no `mdcctl jobs
# enforce` is run for the first jobs.  Off until SIGHUP turns it on; a job
# with a 5 s wait and fall-back is moved to its fallback partition and
# runs there; a fail job is cancelled with the reason on the job; each
# action is in mdcd's log and in its audit log as a write by "mdcd
# (enforce)"; a second enforcer beside it does no harm; a job array is
# acted on by its pending tasks only; SIGTERM stops the loop and mdcd
# cleanly.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
MDCCTL=$top_builddir/mdcctl
MDCD=$top_builddir/mdcd
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
[ -x "$MDCD" ] || skip_all "mdcd is not built"
command -v jq >/dev/null || skip_all "jq is not installed"
lab_need

# one mdc.conf for the plugins and mdcd, as on a login node
export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT MDC_ACCESS_TOKEN MDC_BROKER
cat >"$MDC_CONF" <<'EOF'
JobSubmitMode = reject
JobWaitMax = 1h
EOF

lab_up --plugindir "$JS_DIR" --job-submit mdc --plugstack "required $SPANK"
plan 32
CONF_PATH=$LAB_DIR/etc/slurm.conf
MDCD_LOG=$TEST_DIR/mdcd.log
AUDIT=$TEST_DIR/mdcd-state/audit.log
show_on_fail "$TEST_DIR/err" "$MDCD_LOG" "$AUDIT" "$TEST_DIR/enforce2.log"
# (mdcd needs an API endpoint to start; this test sends it nothing)
cat >>"$MDC_CONF" <<EOF
Endpoint = http://127.0.0.1:9
SlurmConf = $SLURM_CONF
MungeSocket = $LAB_DIR/run/munge.socket
Broker = $TEST_DIR/mdcd/mdcd.sock
EOF

cat >>"$CONF_PATH" <<'EOF'
PartitionName=reserved Nodes=compute MaxTime=INFINITE State=DOWN
PartitionName=ondemand Nodes=compute MaxTime=INFINITE State=UP
EOF
scontrol reconfigure
part_up() { scontrol show partition ondemand | grep -q 'State=UP'; }
ok "the lab has reserved (DOWN) and ondemand" wait_until 30 part_up

field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
state_is() { [ "$(field "$1" JobState)" = "$2" ]; }
waited() { [ $(($(date +%s) - $(date -d "$(field "$1" SubmitTime)" +%s))) -gt "$2" ]; }
logged() { grep -q "$1" "$MDCD_LOG"; }

# a bad interval stops mdcd before it starts
printf 'Endpoint = http://127.0.0.1:9\nJobWaitEnforceInterval = soon\n' >"$TEST_DIR/bad.conf"
out=$("$MDCD" -F -f "$TEST_DIR/bad.conf" -s "$TEST_DIR/bad/mdcd.sock" -d "$TEST_DIR/bad-state" 2>&1)
like "$? $out" "^[1-9][0-9]* mdcd: error: .*bad.conf: JobWaitEnforceInterval 'soon': give seconds, 0 to 86400 \(0: off\)" \
	"mdcd refuses a bad JobWaitEnforceInterval, naming the file and the key"

# mdcd without JobWaitEnforceInterval: no enforcement
"$MDCD" -F -f "$MDC_CONF" -s "$TEST_DIR/mdcd/mdcd.sock" -d "$TEST_DIR/mdcd-state" \
	-l "$MDCD_LOG" </dev/null >>"$TEST_DIR/mdcd.out" 2>&1 &
mpid=$!
at_exit "kill -TERM $mpid"
ok "mdcd starts" wait_until 20 logged "ready on"

jfb=$(timeout 30 sbatch --parsable -p reserved -t 1 --mdc-wait-time=5s \
	--mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand \
	-o "$TEST_DIR/fb.out" --wrap 'echo "ran in $SLURM_JOB_PARTITION"' 2>"$TEST_DIR/err")
like "$jfb" '^[0-9]+$' "a job with a 5 s wait and fall-back is submitted"
jfail=$(timeout 30 sbatch --parsable -p reserved -t 1 --mdc-wait-time=2s --mdc-on-timeout=fail \
	--wrap true 2>"$TEST_DIR/err")
like "$jfail" '^[0-9]+$' "a job with a 2 s wait and fail is submitted"
jlong=$(timeout 30 sbatch --parsable -p reserved -t 1 --mdc-wait-time=1h --wrap true 2>"$TEST_DIR/err")
ok "the 5 s wait runs out" wait_until 30 waited "$jfb" 5
is "$(field "$jfb" Partition)/$(field "$jfail" JobState)" "reserved/PENDING" \
	"with enforcement off, expired jobs are left as they are"

# SIGHUP turns the loop on: mdcd alone moves and cancels
echo "JobWaitEnforceInterval = 1" >>"$MDC_CONF"
kill -HUP "$mpid"
ok "SIGHUP turns enforcement on" wait_until 10 logged "job wait enforcement every 1 s"
moved() { [ "$(field "$jfb" Partition)" = ondemand ]; }
ok "mdcd's loop moves the expired job to its fallback partition" wait_until 20 moved
fb_done() { [ -s "$TEST_DIR/fb.out" ]; }
ok "the moved job runs" wait_until 60 fb_done
is "$(cat "$TEST_DIR/fb.out" 2>&1)" "ran in ondemand" "in its fallback partition"
cancelled() { state_is "$jfail" CANCELLED; }
ok "mdcd's loop cancels the fail job" wait_until 20 cancelled
is "$(field "$jfail" AdminComment)" "mdc:wait=2,on-timeout=fail,expired=cancelled" \
	"scontrol show job says its wait expired and it was cancelled"
is "$(field "$jlong" JobState)/$(field "$jlong" Partition)" "PENDING/reserved" \
	"a job whose wait has not expired is left alone"
like "$(grep "enforce: job $jfb:" "$MDCD_LOG")" "enforce: job $jfb: waited 5 s in reserved: moved to partition ondemand" \
	"mdcd's log has the move"
like "$(grep "enforce: job $jfail:" "$MDCD_LOG")" "enforce: job $jfail: waited 2 s in reserved: cancelled \(on-timeout=fail\)" \
	"mdcd's log has the cancel"
audited() { [ "$(jq -s --argjson j "$1" "[.[] | select(.op == \"enforce\") | (.$2 // [])[] | select(.job == \$j)] | length" "$AUDIT")" = 1 ]; }
ok "the audit log has the move once" audited "$jfb" moved
ok "and the cancel once" audited "$jfail" cancelled
is "$(jq -r 'select(.op == "enforce") | [.user, .result, (.uid | tostring)] | join(" ")' "$AUDIT" | sort -u)" \
	"mdcd (enforce) ok 0" "each enforce entry is a write by 'mdcd (enforce)', as root, ok"
hist=$(MDC_CONF=$MDC_CONF "$MDCCTL" history --all 2>&1)
like "$hist" "mdcd \(enforce\) +enforce +ok +jobs enforce: .*moved $jfb to ondemand" \
	"mdcctl history shows the enforcer's writes"
scancel "$jlong"

# a second enforcer beside mdcd's loop: every job handled once, no error
"$MDCCTL" jobs enforce --interval 1 >"$TEST_DIR/enforce2.log" 2>&1 &
e2=$!
at_exit "kill $e2"
fbs=() fails=()
for i in 1 2 3 4; do
	fbs+=("$(timeout 30 sbatch --parsable -p reserved -t 1 -H --mdc-wait-time=2s \
		--mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand \
		--wrap true 2>>"$TEST_DIR/err")")
	fails+=("$(timeout 30 sbatch --parsable -p reserved -t 1 -H --mdc-wait-time=2s \
		--mdc-on-timeout=fail --wrap true 2>>"$TEST_DIR/err")")
done
# released together, so that both enforcers find them due in the same second
scontrol release "$(IFS=,; echo "${fbs[*]},${fails[*]}")"
all_done() {
	local j
	for j in "${fbs[@]}"; do
		[ "$(field "$j" Partition)" = ondemand ] || return 1
	done
	for j in "${fails[@]}"; do
		state_is "$j" CANCELLED || return 1
	done
}
ok "with two enforcers, 4 jobs fall back and 4 are cancelled" wait_until 40 all_done
kill "$e2"
wait "$e2" 2>/dev/null
is "$(grep -c 'error' "$TEST_DIR/enforce2.log")/$(grep -c 'error: enforce' "$MDCD_LOG")" "0/0" \
	"neither enforcer reports an error"
count() {	# count JOB: actions logged for JOB by both enforcers
	{ grep "job $1: " "$TEST_DIR/enforce2.log"; grep "enforce: job $1: " "$MDCD_LOG"; } |
		grep -c 'moved to\|cancelled'
}
dups=0 missing=0
for j in "${fbs[@]}" "${fails[@]}"; do
	n=$(count "$j")
	[ "$n" -ge 1 ] || missing=$((missing + 1))
	[ "$n" -le 1 ] || dups=$((dups + 1))
done
is "$missing" 0 "each job's action is logged by one of them"
diag "jobs acted on by both enforcers (the one-RPC window): $dups"
good_records() {
	local j
	for j in "${fbs[@]}"; do
		[ "$(field "$j" AdminComment)" = "mdc:wait=2,on-timeout=fall-back-to-on-demand,fallback=ondemand,expired=fell-back" ] || return 1
	done
}
ok "every moved job's record says it fell back" good_records

# job arrays: a wholly pending array falls back whole; in a partly
# running one only the pending tasks are cancelled, the running one is not
jaf=$(timeout 30 sbatch --parsable -p reserved -t 1 --array=1-3 --mdc-wait-time=2s \
	--mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand -o /dev/null \
	--wrap true 2>>"$TEST_DIR/err")
gone_or_moved() { [ -z "$(squeue -h -j "$jaf" -p reserved -o %i 2>/dev/null)" ]; }
ok "a pending job array is moved to its fallback partition, every task" wait_until 30 gone_or_moved
like "$(grep "enforce: job ${jaf}_" "$MDCD_LOG")" "enforce: job ${jaf}_\[1-3\]: waited 2 s in reserved: moved to partition ondemand" \
	"mdcd's log names the array's pending tasks it moved"
ja=$(timeout 30 sbatch --parsable -p debug --exclusive -t 2 --array=1-3 --mdc-wait-time=1h \
	--mdc-on-timeout=fail -o /dev/null --wrap 'sleep 120' 2>>"$TEST_DIR/err")
at_exit "scancel $ja"
one_running() { [ "$(squeue -h -j "$ja" -t R -o %i | wc -l)" = 1 ] &&
	[ "$(squeue -h -j "$ja" -t PD -o %r)" = Resources ]; }
ok "one task of the exclusive array runs, two wait for resources" wait_until 60 one_running
running=$(squeue -h -j "$ja" -t R -o %i)
# the wait runs out now (the record is the enforcer's only input)
scontrol update JobId="$ja" AdminComment=mdc:wait=1,on-timeout=fail
pending_gone() { [ -z "$(squeue -h -j "$ja" -t PD -o %i)" ]; }
ok "its pending tasks are cancelled" wait_until 20 pending_gone
is "$(squeue -h -j "$ja" -t R -o %i)" "$running" "its running task is left running"
like "$(grep "enforce: job ${ja}_" "$MDCD_LOG")" "enforce: job ${ja}_\[[0-9,-]+\]: waited 1 s in debug: cancelled" \
	"mdcd's log names the tasks it cancelled"
scancel "$ja"

# SIGTERM: the loop stops and mdcd exits 0
kill -TERM "$mpid"
wait "$mpid"
is "$?" 0 "mdcd exits 0 on SIGTERM with its enforcement loop running"
like "$(tail -1 "$MDCD_LOG")" "mdcd: info: stopped" "and logs that it stopped"
