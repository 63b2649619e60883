#!/usr/bin/env bash
# The job wait options with srun and salloc on a real Slurm with both
# plugins: an interactive job waiting on a DOWN primary partition runs on
# its fallback partition once the enforcer (`mdcctl jobs enforce
# --interval 1`, in the background) moves it; salloc, with a command and
# with --no-shell, gets its allocation there the same way; bad values are
# refused by srun and salloc themselves, and slurmctld never sees a job.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
MDCCTL=$top_builddir/mdcctl
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
lab_need

export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT MDC_ACCESS_TOKEN
printf 'JobSubmitMode = reject\nJobWaitMax = 1h\n' >"$MDC_CONF"

lab_up --plugindir "$JS_DIR" --job-submit mdc --plugstack "required $SPANK"
plan 12
CONF_PATH=$LAB_DIR/etc/slurm.conf
show_on_fail "$TEST_DIR/err" "$TEST_DIR/enforce.log"

cat >>"$CONF_PATH" <<'EOF'
PartitionName=reserved Nodes=compute MaxTime=INFINITE State=DOWN
PartitionName=ondemand Nodes=compute MaxTime=INFINITE State=UP
EOF
scontrol reconfigure
part_up() { scontrol show partition ondemand | grep -q 'State=UP'; }
ok "the lab has reserved (DOWN) and ondemand" wait_until 30 part_up

"$MDCCTL" jobs enforce --interval 1 >"$TEST_DIR/enforce.log" 2>&1 &
epid=$!
at_exit "kill $epid"

POLICY=(--mdc-wait-time=5s --mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand)
submitted() { sdiag 2>/dev/null | sed -n 's/^[[:space:]]*Jobs submitted:[[:space:]]*\([0-9]*\).*/\1/p'; }
moved_log() { grep -c "moved to partition ondemand" "$TEST_DIR/enforce.log"; }

# srun: waits in reserved, is moved, runs in ondemand
out=$(timeout 90 srun -p reserved -t 1 "${POLICY[@]}" \
	sh -c 'echo "srun ran in $SLURM_JOB_PARTITION"' 2>"$TEST_DIR/err")
is "$out" "srun ran in ondemand" "srun with a 5 s wait and fall-back runs on the fallback partition"
is "$(moved_log)" 1 "moved there by the enforcer"

# salloc with a command
out=$(timeout 90 salloc -p reserved -t 1 "${POLICY[@]}" \
	sh -c 'echo "salloc got $SLURM_JOB_ID in $(scontrol show job "$SLURM_JOB_ID" | tr " " "\n" | sed -n "s/^Partition=//p")"' \
	2>"$TEST_DIR/err")
like "$out" "^salloc got [0-9]+ in ondemand$" "salloc with a command gets its allocation on the fallback partition"
is "$(moved_log)" 2 "moved there by the enforcer"

# salloc --no-shell: returns once the allocation is granted
timeout 90 salloc --no-shell -p reserved -t 1 "${POLICY[@]}" >"$TEST_DIR/noshell" 2>&1
rc=$?
jid=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' "$TEST_DIR/noshell")
is "$rc" 0 "salloc --no-shell returns once the allocation is granted"
is "$(scontrol show job "$jid" 2>/dev/null | tr ' ' '\n' | sed -n 's/^Partition=//p')" ondemand \
	"on the fallback partition"
[ -n "$jid" ] && scancel "$jid"

# bad values: refused by the command, nothing reaches slurmctld
n0=$(submitted)
like "$n0" '^[0-9]+$' "sdiag counts the jobs submitted"
out=$(timeout 30 srun -p reserved --mdc-wait-time=bogus true 2>&1)
like "$? $out" "^[1-9][0-9]* srun: error: spank/mdc: --mdc-wait-time=bogus: 'bogus' is not a duration" \
	"srun --mdc-wait-time=bogus is refused, naming the value"
out=$(timeout 30 salloc --no-shell -p reserved --mdc-wait-time=bogus 2>&1)
like "$? $out" "^[1-9][0-9]* salloc: error: spank/mdc: --mdc-wait-time=bogus: 'bogus' is not a duration" \
	"salloc --mdc-wait-time=bogus is refused, naming the value"
out=$(timeout 30 srun -p reserved --mdc-wait-time=5s --mdc-on-timeout=later true 2>&1)
like "$? $out" "^[1-9][0-9]* srun: error: spank/mdc: --mdc-on-timeout=later: 'later' is not an action" \
	"srun --mdc-on-timeout=later is refused"
is "$(submitted)" "$n0" "slurmctld received no job for the bad values"
