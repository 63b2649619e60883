#!/usr/bin/env bash
# The job wait policy on a real Slurm: spank_mdc.so parses --mdc-wait-time,
# --mdc-on-timeout, --mdc-fallback-partition; job_submit/mdc validates them
# with mdc.conf's JobWaitMax / JobWaitDefault and records the policy in
# AdminComment; `mdcctl jobs enforce --once` moves a job whose wait expired
# in a DOWN partition to its fallback partition, or cancels it.  Also: log
# lines escape user strings, warn mode tells the submitter, and
# MDC_ACCESS_TOKEN stays out of jobs.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
MDCCTL=$top_builddir/mdcctl
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
lab_need

export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT MDC_ACCESS_TOKEN
cat >"$MDC_CONF" <<'EOF'
JobSubmitMode = reject
JobWaitMax = 1h
JobWaitDefault = sitedef=0:02/fall-back-to-on-demand/ondemand
EOF

lab_up --plugindir "$JS_DIR" --job-submit mdc --plugstack "required $SPANK"
plan 37
CTLD_LOG=$LAB_DIR/log/slurmctld.log
CONF_PATH=$LAB_DIR/etc/slurm.conf
show_on_fail "$TEST_DIR/err"

# reserved and sitedef cannot run jobs; ondemand shares the node with debug
cat >>"$CONF_PATH" <<'EOF'
PartitionName=reserved Nodes=compute MaxTime=INFINITE State=DOWN
PartitionName=sitedef Nodes=compute MaxTime=INFINITE State=DOWN
PartitionName=ondemand Nodes=compute MaxTime=INFINITE State=UP
EOF
scontrol reconfigure
part_up() { scontrol show partition ondemand | grep -q 'State=UP'; }
ok "the lab has reserved (DOWN), sitedef (DOWN) and ondemand" wait_until 30 part_up

field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
state_is() { [ "$(field "$1" JobState)" = "$2" ]; }
enforce() { "$MDCCTL" jobs enforce --once >>"$TEST_DIR/enforce.log" 2>&1; }
submits() { sdiag 2>/dev/null | sed -n 's/^[[:space:]]*REQUEST_SUBMIT_BATCH_JOB[[:space:]]*( *[0-9]*) count:\([0-9]*\).*/\1/p'; }
show_on_fail "$TEST_DIR/enforce.log"

like "$(sbatch --help 2>&1)" '--mdc-wait-time=DURATION' "sbatch --help lists --mdc-wait-time"

# fall back: 5 s in reserved, then ondemand
jfb=$(timeout 30 sbatch --parsable -p reserved -t 1 --mdc-wait-time=5s \
	--mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand \
	-o "$TEST_DIR/fb.out" --wrap 'echo "ran in $SLURM_JOB_PARTITION"' 2>"$TEST_DIR/err")
like "$jfb" '^[0-9]+$' "sbatch with a wait policy is accepted"
is "$(field "$jfb" AdminComment)" "mdc:wait=5,on-timeout=fall-back-to-on-demand,fallback=ondemand" \
	"the policy is recorded in the job's AdminComment"
# a long wait in the same partition: the enforcer leaves it alone
jlong=$(timeout 30 sbatch --parsable -p reserved -t 1 --mdc-wait-time=1:00:00 --wrap true 2>"$TEST_DIR/err")
is "$(field "$jlong" AdminComment)" "mdc:wait=3600,on-timeout=fail" \
	"HH:MM:SS is read as Slurm reads it; on-timeout defaults to fail"
out=$("$MDCCTL" jobs 2>&1)
like "$(grep "^$jfb " <<<"$out")" "^$jfb +reserved +PENDING +[A-Za-z]+ +00:00:05 +00:00:0[0-5] +move to ondemand" "mdcctl jobs shows the remaining wait and the move"
like "$(grep "^$jlong " <<<"$out")" "^$jlong +reserved +PENDING +[A-Za-z]+ +01:00:00 +(01:00:00|00:[0-9]{2}:[0-9]{2}) +cancel" "mdcctl jobs shows the cancel to come"
expired() { [ $(($(date +%s) - $(date -d "$(field "$jfb" SubmitTime)" +%s))) -gt 5 ]; }
ok "the 5 s wait runs out" wait_until 30 expired
ok "mdcctl jobs enforce --once succeeds" enforce
is "$(field "$jfb" Partition)" ondemand "the expired job was moved to ondemand"
like "$(cat "$TEST_DIR/enforce.log")" "job $jfb: waited 5 s in reserved: moved to partition ondemand" \
	"the enforcer logs the move"
fb_done() { [ -s "$TEST_DIR/fb.out" ]; }
wait_until 60 fb_done
is "$(cat "$TEST_DIR/fb.out" 2>&1)" "ran in ondemand" "the job ran in its fallback partition"
is "$(field "$jfb" AdminComment)" "mdc:wait=5,on-timeout=fall-back-to-on-demand,fallback=ondemand,expired=fell-back" \
	"AdminComment says the wait expired and the job fell back"
is "$(field "$jlong" JobState)/$(field "$jlong" Partition)" "PENDING/reserved" "a job whose wait has not expired is left alone"
ok "a second cycle is harmless" enforce
scancel "$jlong"

# fail: 2 s (MM:SS), then cancelled with the reason on the job
jfail=$(timeout 30 sbatch --parsable -p reserved -t 1 --mdc-wait-time=0:02 --mdc-on-timeout=fail \
	--wrap true 2>"$TEST_DIR/err")
cancelled() { enforce; state_is "$jfail" CANCELLED; }
ok "after its wait, the fail job is cancelled" wait_until 30 cancelled
is "$(field "$jfail" AdminComment)" "mdc:wait=2,on-timeout=fail,expired=cancelled" \
	"scontrol show job says the wait expired and the job was cancelled"

# a job that starts before its wait expires is left alone
jrun=$(timeout 30 sbatch --parsable -p debug -t 1 --mdc-wait-time=1s --wrap 'sleep 60' 2>"$TEST_DIR/err")
running() { state_is "$jrun" RUNNING; }
ok "a job in debug starts" wait_until 60 running
run_expired() { [ $(($(date +%s) - $(date -d "$(field "$jrun" SubmitTime)" +%s))) -gt 1 ]; }
wait_until 10 run_expired
enforce
is "$(field "$jrun" JobState)/$(field "$jrun" AdminComment)" "RUNNING/mdc:wait=1,on-timeout=fail" \
	"a running job is left alone after its wait"
scancel "$jrun"

# site default: sitedef falls back to ondemand after 2 s without any option
jsite=$(timeout 30 sbatch --parsable -p sitedef -t 1 --wrap true 2>"$TEST_DIR/err")
is "$(field "$jsite" AdminComment)" "mdc:wait=2,on-timeout=fall-back-to-on-demand,fallback=ondemand" \
	"JobWaitDefault applies to a job in sitedef without any option"
site_moved() { enforce; [ "$(field "$jsite" Partition)" = ondemand ]; }
ok "and the enforcer moves it to ondemand" wait_until 30 site_moved
jnone=$(timeout 30 sbatch --parsable -p debug -H -t 1 --wrap true 2>"$TEST_DIR/err")
is "$(field "$jnone" AdminComment)" "" "a job in debug gets no policy"
scancel "$jnone"

# bad values stop sbatch before anything is sent
n0=$(submits)
like "$n0" '^[0-9]+$' "sdiag counts batch submissions"
out=$(timeout 30 sbatch -p reserved --mdc-wait-time=soon --wrap true 2>&1)
like "$out" "^sbatch: error: spank/mdc: --mdc-wait-time=soon: 'soon' is not a duration" \
	"a bad --mdc-wait-time is refused with the value and the formats"
out=$(timeout 30 sbatch -p reserved --mdc-on-timeout=retry --wrap true 2>&1)
like "$out" "^sbatch: error: spank/mdc: --mdc-on-timeout=retry: 'retry' is not an action: use fail or fall-back-to-on-demand" \
	"a bad --mdc-on-timeout is refused"
out=$(timeout 30 sbatch -p reserved --mdc-wait-time=5 --mdc-on-timeout=fail \
	--mdc-fallback-partition=ondemand --wrap true 2>&1)
like "$out" "^sbatch: error: spank/mdc: --mdc-fallback-partition=ondemand contradicts --mdc-on-timeout=fail" \
	"a contradiction is refused before sending"
is "$(submits)" "$n0" "slurmctld received no submission for the bad values"

# what only slurmctld knows: refused there, the user is told
out=$(timeout 30 sbatch -p reserved --mdc-wait-time=5 --mdc-fallback-partition=nosuch --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'nosuch' is not in the managed slurm.conf" \
	"a fallback partition outside the managed slurm.conf is refused"
out=$(timeout 30 sbatch -p ondemand --mdc-wait-time=5 --mdc-fallback-partition=ondemand --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'ondemand' is one the job already asks for" \
	"a fallback partition equal to the requested one is refused"
out=$(timeout 30 sbatch -p reserved --mdc-wait-time=2h --wrap true 2>&1)
like "$out" "^sbatch: error: --mdc-wait-time of 7200 seconds is longer than the site's maximum \(JobWaitMax, 3600 seconds\)" \
	"a wait above JobWaitMax is refused"

# a partition name with a newline cannot forge a line in slurmctld.log
out=$(timeout 30 sbatch -p $'x\nforged by a user' --wrap true 2>&1)
ctld_logged() { grep -qF 'x\nforged by a user' "$CTLD_LOG"; }
ok "slurmctld.log has the partition name escaped" wait_until 10 ctld_logged
is "$(grep -c '^forged by a user' "$CTLD_LOG")" 0 "and no forged line"

# warn mode: the submitter is told, not only slurmctld.log
sed -i 's/^JobSubmitMode = reject/JobSubmitMode = warn/' "$MDC_CONF"
scontrol create PartitionName=rt Nodes=ALL
jwarn=$(timeout 30 sbatch --parsable -p rt -H -t 1 --wrap true 2>"$TEST_DIR/warn.err")
like "$jwarn" '^[0-9]+$' "warn mode accepts a job for a runtime-only partition"
like "$(cat "$TEST_DIR/warn.err")" "^sbatch: partition 'rt' exists only at runtime" \
	"and sbatch shows the warning to the submitter"
scancel "$jwarn"

# MDC_ACCESS_TOKEN never reaches a job
MDC_ACCESS_TOKEN=secret-token timeout 30 sbatch -p debug -t 1 -o "$TEST_DIR/env.out" \
	--wrap 'env; echo end' >/dev/null 2>"$TEST_DIR/err"
env_done() { grep -q '^end$' "$TEST_DIR/env.out"; }
wait_until 60 env_done
is "$(grep -c 'MDC_ACCESS_TOKEN\|secret-token' "$TEST_DIR/env.out")/$(grep -c '^end$' "$TEST_DIR/env.out")" "0/1" \
	"the batch job's environment has no MDC_ACCESS_TOKEN"
out=$(MDC_ACCESS_TOKEN=secret-token timeout 60 srun -p debug -t 1 sh -c 'echo "token=${MDC_ACCESS_TOKEN-unset}"' 2>"$TEST_DIR/err")
is "$out" "token=unset" "an srun task has no MDC_ACCESS_TOKEN"

# no plugstack.conf arguments and no Cluster/Endpoint in mdc.conf: said
# once per slurmd start, not per job (24.11's reconfigure restarts slurmd)
starts=$(grep -c 'slurmd version .* started' "$LAB_DIR/log/slurmd.log")
is "$(grep -c 'spank/mdc: no cluster= or endpoint= in plugstack.conf and no Cluster/Endpoint in mdc.conf' "$LAB_DIR/log/slurmd.log")/$starts" "$((starts > 0 ? starts : 1))/$starts" \
	"slurmd says once per start that spank_mdc has nothing to set"
