#!/usr/bin/env bash
# `slurm-lab restart` in a loop: every restart brings
# back slurmctld and slurmd under new pids that answer (slurmd with the
# pid of its pidfile), the node usable, also under a running job, and
# counts itself in run/sync.count; jobs run afterwards.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_up
N=${LAB_RESTART_CYCLES:-10}
plan $((N + 3))
show_on_fail "$TEST_DIR/restart.err"
host=$(hostname -s)

job=$(timeout 30 sbatch --parsable -o /dev/null --wrap 'sleep 600') || job=
like "$job" '^[0-9]+$' "a job runs during the first restarts"
good=0
for ((i = 1; i <= N; i++)); do
	why=
	[ "$i" = $((N / 2 + 1)) ] && [ -n "$job" ] && scancel "$job"
	old_ctld=$(cat "$LAB_DIR/run/slurmctld.pid") old_slurmd=$(cat "$LAB_DIR/run/slurmd.pid")
	n=$(lab_syncs)
	"$LAB_SCRIPT" restart "$LAB_DIR" 2>"$TEST_DIR/restart.err" || why="restart exited $?: $(tail -3 "$TEST_DIR/restart.err")"
	ctld=$(cat "$LAB_DIR/run/slurmctld.pid" 2>/dev/null) slurmd=$(cat "$LAB_DIR/run/slurmd.pid" 2>/dev/null)
	[ -z "$why" ] && { [ -z "$ctld" ] || [ "$ctld" = "$old_ctld" ] || [ ! -d "/proc/$ctld" ]; } &&
		why="slurmctld has no new running pid ($old_ctld -> $ctld)"
	[ -z "$why" ] && { [ -z "$slurmd" ] || [ "$slurmd" = "$old_slurmd" ] || [ ! -d "/proc/$slurmd" ]; } &&
		why="slurmd has no new running pid ($old_slurmd -> $slurmd)"
	[ -z "$why" ] && [ "$(timeout 10 scontrol show slurmd | sed -n 's/^Slurmd PID *= *//p')" != "$slurmd" ] &&
		why="slurmd does not answer with pid $slurmd"
	[ -z "$why" ] && ! [[ "$(timeout 10 sinfo -h -N -n "$host" -o %t)" =~ ^(idle|mix|alloc)$ ]] &&
		why="the node is not usable: $(sinfo -h -N -n "$host" -o %t)"
	[ -z "$why" ] && [ "$(lab_syncs)" != $((n + 1)) ] && why="sync.count did not count the restart"
	if [ -z "$why" ]; then
		good=$((good + 1))
		pass "restart $i: new slurmctld and slurmd pids, slurmd answering, node usable"
	else
		fail "restart $i" "$why"
	fi
done
is "$good/$N" "$N/$N" "every restart succeeded"
is "$(timeout 60 srun -t 1 hostname 2>&1)" "$host" "jobs run after the restarts"
