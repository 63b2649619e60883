#!/usr/bin/env bash
# The wait policy's fall-back moves a job to another pool's
# host.  On the multi-host lab, two partitions on different compute hosts
# (p1 on compute1, DOWN, as a reservation not yet usable; p2 on compute2);
# a job submitted on login2 to p1 with --mdc-on-timeout=fall-back-to-on-demand
# --mdc-fallback-partition=p2 waits out its 3 s, `mdcctl jobs enforce
# --once` on login1 moves it, and it runs on compute2 (the job writes its
# hostname to the shared /home); a job whose wait has not run out stays.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
MDCCTL=$top_builddir/mdcctl
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
[ -x "$MDCCTL" ] || skip_all "mdcctl is not built"
hosts_need runuser useradd

chmod 0755 "$TEST_DIR"
export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT MDC_ACCESS_TOKEN MDC_BROKER
printf '%s\n' "JobSubmitMode = reject" "JobWaitMax = 1h" "SlurmConf = $D/etc/slurm.conf" \
	"MungeSocket = $D/run/munge.socket" >"$MDC_CONF"
chmod 0644 "$MDC_CONF"
show_on_fail "$TEST_DIR/enforce.log" "$D/hosts/compute1/log/slurmd.log" "$D/hosts/compute2/log/slurmd.log"
hosts_up --compute 2 --login 2 --plugindir "$JS_DIR" --job-submit mdc --plugstack "required $SPANK"
plan 10
hosts_user mdchf

printf '%s\n' "PartitionName=p1 Nodes=compute1 MaxTime=INFINITE State=DOWN" \
	"PartitionName=p2 Nodes=compute2 MaxTime=INFINITE State=UP" >>"$D/etc/slurm.conf"
on ctld scontrol reconfigure
part_up() { on login1 scontrol show partition p2 2>/dev/null | grep -q 'State=UP'; }
ok "the cluster has p1 (compute1, DOWN) and p2 (compute2)" wait_until 30 part_up
is "$(on login1 sinfo -h -p p1,p2 -o '%P %N' | sort | tr '\n' ' ')" "p1 compute1 p2 compute2 " \
	"each partition is on a compute host of its own"

field() { on login1 scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
state_is() { [ "$(field "$1" JobState)" = "$2" ]; }
submit() {	# submit WAIT: a job in p1 falling back to p2
	on login2 runuser -u "$U" -- sh -c "cd /home/$U && sbatch --parsable -p p1 -t 1 \
		--mdc-wait-time=$1 --mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=p2 \
		-o /home/$U/job-%j.out --wrap 'echo \$(hostname) \$SLURM_JOB_PARTITION'" 2>&1
}
enforce() { on login1 "$MDCCTL" jobs enforce --once >>"$TEST_DIR/enforce.log" 2>&1; }

j=$(submit 3s)
like "$j" '^[0-9]+$' "a user submits a job to p1 with a fall-back to p2 on login2"
jlong=$(submit 1h)
expired() { [ $(($(date +%s) - $(date -d "$(field "$j" SubmitTime)" +%s))) -gt 3 ]; }
wait_until 30 expired
is "$(field "$j" JobState)/$(field "$j" Partition)" PENDING/p1 "its wait runs out while it is pending in p1"
ok "mdcctl jobs enforce --once on login1 succeeds" enforce
like "$(cat "$TEST_DIR/enforce.log")" "job $j: waited [0-9]+ s in p1: moved to partition p2" \
	"the enforcer moves it to p2"
ok "the job runs to completion" wait_until 60 state_is "$j" COMPLETED
is "$(cat "$D/shared/home/$U/job-$j.out" 2>&1)" "compute2 p2" "it ran on compute2, p2's host"
is "$(field "$j" NodeList)" compute2 "the controller says compute2 ran it"
is "$(field "$jlong" JobState)/$(field "$jlong" Partition)" PENDING/p1 \
	"a job whose wait has not run out stays in p1"
on login1 scancel "$jlong"
