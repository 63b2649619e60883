#!/usr/bin/env bash
# The lab is reliable: 20 up/down cycles of one lab in a
# row all succeed.  Each up must leave munged, slurmctld and slurmd running
# under the pids their pidfiles name, answering, with the node idle; each
# down must stop exactly those pids.  (The one longer lab test: about
# 4 s a cycle.)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_need
N=${LAB_UPDOWN_CYCLES:-20}
plan $((N + 1))
LAB_DIR=$TEST_DIR/lab
at_exit "\"\$LAB_SCRIPT\" down '$LAB_DIR'"
show_on_fail "$TEST_DIR/up.err" "$TEST_DIR/down.err" "$LAB_DIR/log/slurmctld.log" \
	"$LAB_DIR/log/slurmd.log" "$LAB_DIR/log/munged.log"

# alive PID: running (one read of its stat: a zombie or a pid reaped
# meanwhile is not)
alive() {
	local st
	st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	st=${st##*) }
	[ -n "$st" ] && [ "${st:0:1}" != Z ]
}

good=0
for ((i = 1; i <= N; i++)); do
	why=
	out=$("$LAB_SCRIPT" up "$LAB_DIR" 2>"$TEST_DIR/up.err") || why="up exited $?: $(tail -3 "$TEST_DIR/up.err")"
	pids=()
	if [ -z "$why" ]; then
		eval "$out"
		for d in munged slurmctld slurmd; do
			read -r p 2>/dev/null <"$LAB_DIR/run/$d.pid"
			if [ -n "${p:-}" ] && alive "$p"; then pids+=("$p"); else why="$d is not running after up"; fi
			p=
		done
		[ -z "$why" ] && ! timeout 10 scontrol ping | grep -q 'is UP' && why="slurmctld does not answer"
		[ -z "$why" ] && [ "$(timeout 10 scontrol show slurmd | sed -n 's/^Slurmd PID *= *//p')" != "${pids[2]}" ] &&
			why="slurmd does not answer with the pid of its pidfile"
		[ -z "$why" ] && [ "$(timeout 10 sinfo -h -o %t | head -1)" != idle ] && why="the node is not idle"
	fi
	"$LAB_SCRIPT" down "$LAB_DIR" 2>"$TEST_DIR/down.err" || why="${why:+$why; }down exited $?"
	for p in "${pids[@]}"; do
		alive "$p" && why="${why:+$why; }pid $p still runs after down"
	done
	if [ -z "$why" ]; then
		good=$((good + 1))
		pass "cycle $i: up (munged, slurmctld, slurmd answering, node idle), down (all stopped)"
	else
		fail "cycle $i" "$why"
	fi
done
is "$good/$N" "$N/$N" "every up/down cycle succeeded"
