#!/usr/bin/env bash
# A fall-back to a partition the job's user may not run
# in.  slurmctld 22.05 moves the job, then refuses the update ("Requested
# partition configuration not available now") and leaves it pending for
# ever (PartitionConfig) with AdminComment saying it fell back; 24.11
# takes the move and the job pends there.  The enforcer must not make such
# a move and say why, and job_submit/mdc must refuse such a fall-back at
# submission.  Also on 24.11 (release_proofs.t): the users are mirrored
# into its root and run its commands there (lab_release_user, lab_setpriv).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
MDCCTL=$top_builddir/mdcctl
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
for c in setpriv useradd groupadd; do
	command -v "$c" >/dev/null || skip_all "'$c' is not installed"
done
lab_need

export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT MDC_ACCESS_TOKEN
printf 'JobSubmitMode = reject\n' >"$MDC_CONF"
chmod 0644 "$MDC_CONF"

# a user outside the group ondemand will be limited to
sfx=$$
user=mdcfu$sfx member=mdcfm$sfx group=mdcfg$sfx
shadow groupadd "$group" || { echo "Bail out! groupadd failed"; exit 1; }
at_exit "shadow groupdel '$group' 2>/dev/null"
shadow useradd -M -N -s /usr/sbin/nologin "$user" && lab_release_user "$user" ||
	{ echo "Bail out! useradd failed"; exit 1; }
at_exit "shadow userdel '$user' 2>/dev/null"
shadow useradd -M -N -G "$group" -s /usr/sbin/nologin "$member" && lab_release_user "$member" ||
	{ echo "Bail out! useradd failed"; exit 1; }
at_exit "shadow userdel '$member' 2>/dev/null"

lab_up --plugindir "$JS_DIR" --job-submit mdc --plugstack "required $SPANK"
plan 20
CONF_PATH=$LAB_DIR/etc/slurm.conf
show_on_fail "$TEST_DIR/err" "$TEST_DIR/enforce.log"
chmod 0755 "$TEST_DIR"

as() {
	local u=$1; shift
	(cd / && lab_setpriv "$u" \
		env -i PATH="$PATH" SLURM_CONF="$SLURM_CONF" HOME=/ SBATCH_OUTPUT=/dev/null "$@")
}
as_user() { as "$user" "$@"; }
field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

cat >>"$CONF_PATH" <<'EOF2'
PartitionName=low Nodes=compute MaxTime=INFINITE State=DOWN
PartitionName=ondemand Nodes=compute MaxTime=INFINITE State=UP
PartitionName=short Nodes=compute MaxTime=INFINITE State=UP
EOF2
scontrol reconfigure
part_up() { scontrol show partition ondemand | grep -q 'State=UP'; }
ok "the lab has low (DOWN) and ondemand" wait_until 30 part_up

# accepted while ondemand is open to all; then the site limits ondemand
j=$(as_user timeout 30 sbatch --parsable -p low -t 1 --mdc-wait-time=2s \
	--mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand --wrap true 2>"$TEST_DIR/err")
like "$j" '^[0-9]+$' "the user's job in low with a fall-back to ondemand"
# a time limit above the fallback's MaxTime: slurmctld would move it and
# it would pend there for ever (PartitionTimeLimit)
jt=$(timeout 30 sbatch --parsable -p low -t 10 --mdc-wait-time=2s \
	--mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=short --wrap true 2>"$TEST_DIR/err")
like "$jt" '^[0-9]+$' "a job with -t 10 in low with a fall-back to short"
sed -i "s/^PartitionName=ondemand .*/& AllowGroups=$group/; s/^\(PartitionName=short .*\)MaxTime=INFINITE/\1MaxTime=5/" "$CONF_PATH"
scontrol reconfigure
limited() { scontrol show partition ondemand | grep -q "AllowGroups=$group" &&
	scontrol show partition short | grep -q "MaxTime=00:05:00"; }
wait_until 30 limited

# submission: refused with the reason, for the user outside the group only
fb=(-t 1 --mdc-wait-time=2s --mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand)
out=$(as_user timeout 30 sbatch --parsable -p low "${fb[@]}" --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'ondemand' would not run the job: uid $(id -u "$user") is in none of the AllowGroups=$group of partition 'ondemand'" \
	"a fall-back to a partition whose AllowGroups exclude the user is refused at submission"
jm=$(as "$member" timeout 30 sbatch --parsable -H -p low "${fb[@]}" --wrap true 2>"$TEST_DIR/err")
like "$jm" '^[0-9]+$' "a member of the group is accepted"
scancel "$jm"
out=$(timeout 30 sbatch --parsable -p debug -H "${fb[@]/ondemand/low}" --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'low' would not run the job: partition 'low' is State=DOWN" \
	"a fall-back to a DOWN partition is refused"
out=$(timeout 30 sbatch --parsable -p low -H "${fb[@]/ondemand/short}" -t 10 --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'short' would not run the job: the job's time limit of 10 minutes is above the MaxTime=5 of partition 'short'" \
	"a fall-back to a partition whose MaxTime is below the job's time limit is refused"

expired() { [ $(($(date +%s) - $(date -d "$(field "$j" SubmitTime)" +%s))) -gt 3 ]; }
wait_until 30 expired
"$MDCCTL" jobs enforce --once >"$TEST_DIR/enforce.log" 2>&1
is "$?" 1 "mdcctl jobs enforce --once fails"
like "$(cat "$TEST_DIR/enforce.log")" \
	"cannot move job $j to partition ondemand: uid $(id -u "$user") is in none of the AllowGroups=$group of partition 'ondemand'; the job stays in low" \
	"it says why the move is not made (22.05 would refuse it after moving the job, 24.11 would strand it)"
is "$(field "$j" Partition)" low "the job is in low again, not stranded in ondemand"
is "$(field "$j" AdminComment)" "mdc:wait=2,on-timeout=fall-back-to-on-demand,fallback=ondemand" \
	"AdminComment does not say it fell back"
like "$(cat "$TEST_DIR/enforce.log")" \
	"cannot move job $jt to partition short: its time limit of 10 minutes is above the partition's MaxTime of 5 minutes; the job stays in low" \
	"a job whose time limit is above the fallback's MaxTime is not moved, and it says why"
is "$(field "$jt" Partition)/$(field "$jt" AdminComment)" "low/mdc:wait=2,on-timeout=fall-back-to-on-demand,fallback=short" \
	"it stays in low, not recorded as fallen back"
out=$("$MDCCTL" jobs 2>&1)
unlike "$(grep "^$j " <<<"$out")" "moved to" "mdcctl jobs does not say it was moved"
is "$(field "$j" JobState)" PENDING "the job still pends"

# issue 24 item 4: a runtime-only change of the fallback partition
# (scontrol update, not in the file on disk) is seen at submission: the
# plugin judges slurmctld's live partition record
fs=(--mdc-wait-time=2s --mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=short)
jo=$(as_user timeout 30 sbatch --parsable -H -p low -t 1 "${fs[@]}" --wrap true 2>"$TEST_DIR/err")
like "$jo" '^[0-9]+$' "short is open to all: the user's fall-back to it is accepted"
scancel "$jo" 2>/dev/null
scontrol update PartitionName=short AllowGroups="$group"
out=$(as_user timeout 30 sbatch --parsable -H -p low -t 1 "${fs[@]}" --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'short' would not run the job: uid $(id -u "$user") is in none of the AllowGroups=$group of partition 'short'" \
	"after a runtime AllowGroups=$group the user's fall-back to short is refused"
ok "... while the file on disk gives short no AllowGroups" bash -c "! grep -q '^PartitionName=short .*AllowGroups' '$CONF_PATH'"
scontrol update PartitionName=short AllowGroups=ALL State=DOWN
out=$(timeout 30 sbatch --parsable -H -p low -t 1 "${fs[@]}" --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'short' would not run the job: partition 'short' is State=DOWN" \
	"after a runtime State=DOWN a fall-back to short is refused"
scontrol update PartitionName=short State=UP MaxTime=2
out=$(timeout 30 sbatch --parsable -H -p low -t 3 "${fs[@]}" --wrap true 2>&1)
like "$out" "^sbatch: error: fallback partition 'short' would not run the job: the job's time limit of 3 minutes is above the MaxTime=2 of partition 'short'" \
	"after a runtime MaxTime=2 a fall-back with -t 3 is refused"
