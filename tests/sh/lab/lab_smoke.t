#!/usr/bin/env bash
# The lab is a real Slurm: jobs run through srun and sbatch, the generated
# config has the base + partition layout the renderer shares, status reports
# the daemons, and down stops exactly this lab's processes (twice is fine,
# after a failed up too).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_up
plan 34
show_on_fail "$TEST_DIR/srun.err"
host=$(hostname -s)

is "$SLURM_CONF" "$LAB_DIR/etc/slurm.conf" "up exports SLURM_CONF of the lab"

out=$(timeout 60 srun -t 1 hostname 2>>"$TEST_DIR/srun.err")
is "$out" "$host" "srun hostname prints the short host name"

jid=$(timeout 30 sbatch --parsable -t 1 -o "$TEST_DIR/job.out" \
	--wrap 'echo "job $SLURM_JOB_ID on $(hostname -s) in $SLURM_JOB_PARTITION"')
like "$jid" '^[0-9]+$' "sbatch --wrap returns a job id"
job_gone() { [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && [ -s "$TEST_DIR/job.out" ]; }
wait_until 60 job_gone
is "$(cat "$TEST_DIR/job.out" 2>&1)" "job $jid on $host in debug" "sbatch output file holds the job's output"
is "$(scontrol show job "$jid" 2>&1 | grep -o 'JobState=[A-Z]*')" "JobState=COMPLETED" \
	"the batch job completed"

part=$(scontrol show partition debug --oneliner)
like "$part" '(^| )Default=YES( |$)' "partition debug is the default"
like "$part" '(^| )MaxTime=UNLIMITED( |$)' "partition debug has no time limit"
like "$part" '(^| )State=UP( |$)' "partition debug is up"
like "$part" '(^| )NodeSets=compute( |$)' "partition debug names the NodeSet compute"
like "$part" "(^| )Nodes=$host( |\$)" "the NodeSet resolves to this host"

# slurm.conf = slurm.base.conf + the partition line
{ cat "$LAB_DIR/etc/slurm.base.conf"
  echo "PartitionName=debug Nodes=compute Default=YES MaxTime=INFINITE State=UP"; } >"$TEST_DIR/want.conf"
files_eq "slurm.conf is the base plus the debug partition" "$LAB_DIR/etc/slurm.conf" "$TEST_DIR/want.conf"
base=$(cat "$LAB_DIR/etc/slurm.base.conf")
like "$base" "^SlurmctldHost=$host\(127\.0\.0\.1\)" "base names the controller by short host name"
like "$base" "^AuthInfo=socket=$LAB_DIR/run/munge\.socket" "base points Slurm at the lab's own munged"
like "$base" "^NodeName=$host .*NodeAddr=127\.0\.0\.1" "base holds the node line from slurmd -C"

status=$(slurm-lab status "$LAB_DIR" 2>&1); rc=$?
is "$rc" 0 "status exits 0 while the lab runs"
like "$status" "^slurmctld running pid [0-9]+ port [0-9]+" "status reports slurmctld and its port"
like "$status" "^node $host idle" "status reports the idle node"

nok "up refuses a directory whose lab is running" slurm-lab up "$LAB_DIR"

# restart picks up the current slurm.conf (what the emulator relies on)
ctld_pid=$(cat "$LAB_DIR/run/slurmctld.pid")
echo "PartitionName=extra Nodes=compute MaxTime=5 State=UP" >>"$LAB_DIR/etc/slurm.conf"
ok "restart restarts slurmctld and slurmd" slurm-lab restart "$LAB_DIR"
isnt "$(cat "$LAB_DIR/run/slurmctld.pid")" "$ctld_pid" "slurmctld runs with a new pid"
like "$(scontrol show partition extra --oneliner 2>&1)" '(^| )MaxTime=00:05:00( |$)' \
	"the restarted slurmctld read the changed slurm.conf"
is "$(timeout 60 srun -t 1 -p extra hostname 2>>"$TEST_DIR/srun.err")" "$host" "jobs run after the restart"

pids=$(cat "$LAB_DIR"/run/*.pid | tr '\n' ' ')
ok "down stops the lab" slurm-lab down "$LAB_DIR"
alive=
for p in $pids; do
	st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ] && alive="$alive $p"
done
is "$alive" "" "no daemon of the lab is left ($pids)"
# procs_naming DIR: processes whose command line mentions DIR (read with
# builtins: a grep would find its own arguments)
procs_naming() {
	local f args
	for f in /proc/[0-9]*/cmdline; do
		mapfile -d '' args 2>/dev/null <"$f" || continue
		[[ "${args[*]-}" == *"$1/"* ]] && { f=${f#/proc/}; echo "${f%/cmdline}: ${args[*]}"; }
	done
}
is "$(procs_naming "$LAB_DIR")" "" "no process names the lab directory"
slurm-lab status "$LAB_DIR" >/dev/null 2>&1
is "$?" 3 "status exits 3 once the lab is down"
ok "a second down is harmless" slurm-lab down "$LAB_DIR"
# a pidfile naming a process that is not this lab's daemon is not obeyed
sleep 300 &
sleeper=$!
at_exit "kill $sleeper"
echo "$sleeper" >"$LAB_DIR/run/slurmctld.pid"
ok "down with a stale pidfile succeeds" slurm-lab down "$LAB_DIR"
ok "the process named by the stale pidfile was not signalled" kill -0 "$sleeper"

# a start that fails (unknown job_submit plugin: slurmctld dies) says why,
# leaves nothing running, and down still works
bad=$TEST_DIR/bad
at_exit "slurm-lab down '$bad'"
err=$(slurm-lab up "$bad" --job-submit nosuchplugin 2>&1 >/dev/null)
like "$err" "slurmctld exited during start-up" "a failed up says which daemon died"
is "$(procs_naming "$bad")" "" "a failed up stops what it started"
ok "down works after a failed up" slurm-lab down "$bad"

# the same directory comes up again after a down (state is recovered)
out=$(slurm-lab up "$LAB_DIR" 2>&1 >/dev/null)
is "$?" 0 "up again in the same directory after down"
is "$(timeout 60 srun -t 1 hostname 2>>"$TEST_DIR/srun.err")" "$host" "jobs run in the lab started again"
