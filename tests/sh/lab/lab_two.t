#!/usr/bin/env bash
# Two labs at once in two directories: distinct ports, munge sockets and
# state; a job runs in each and is seen only by its own controller; one
# lab's down leaves the other running.  Lab b also takes its ports from
# --port-base.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_need
# a base port whose successor is free too (free_port only vouches for one)
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in 1 2 3 4 5 6 7 8 9 10; do
	base=$(free_port)
	port_free "$((base + 1))" && break
done

A=$TEST_DIR/a B=$TEST_DIR/b
lab_start "$A"
conf_a=$SLURM_CONF
lab_start "$B" --port-base "$base"
conf_b=$SLURM_CONF
plan 14
show_on_fail "$TEST_DIR/srun.err"
host=$(hostname -s)

is "$conf_a" "$A/etc/slurm.conf" "lab a exports its own SLURM_CONF"
is "$conf_b" "$B/etc/slurm.conf" "lab b exports its own SLURM_CONF"
key() { sed -n "s/^$2=//p" "$1"; }
is "$(key "$conf_b" SlurmctldPort) $(key "$conf_b" SlurmdPort)" "$base $((base + 1))" \
	"--port-base sets slurmctld's and slurmd's ports"
isnt "$(key "$conf_a" SlurmctldPort)" "$(key "$conf_b" SlurmctldPort)" "the labs use different controller ports"
isnt "$(key "$conf_a" AuthInfo)" "$(key "$conf_b" AuthInfo)" "each lab has its own munge socket"
# the controllers really listen where their configs say
live_port() { SLURM_CONF=$1 scontrol show config | sed -n 's/^SlurmctldPort *= *//p'; }
is "$(live_port "$conf_a")" "$(key "$conf_a" SlurmctldPort)" "lab a's slurmctld answers on its port"
is "$(live_port "$conf_b")" "$base" "lab b's slurmctld answers on its port"

# one batch job in each lab, each writing its own file
submit() {
	SLURM_CONF=$1 timeout 30 sbatch --parsable -t 1 -J "job-$2" -o "$TEST_DIR/$2.out" \
		--wrap "echo lab $2 \$SLURM_JOB_ID \$(hostname -s)"
}
ja=$(submit "$conf_a" a) jb=$(submit "$conf_b" b)
done_in() { [ -s "$TEST_DIR/$2.out" ] && [ -z "$(SLURM_CONF=$1 squeue -h -j "$3" 2>/dev/null)" ]; }
wait_until 60 done_in "$conf_a" a "$ja"
wait_until 60 done_in "$conf_b" b "$jb"
is "$(cat "$TEST_DIR/a.out" 2>&1)" "lab a $ja $host" "the job in lab a ran"
is "$(cat "$TEST_DIR/b.out" 2>&1)" "lab b $jb $host" "the job in lab b ran"

# a job held in lab a is not visible from lab b
jh=$(SLURM_CONF=$conf_a sbatch --parsable --hold -J only-in-a --wrap true)
is "$(SLURM_CONF=$conf_a squeue -h -n only-in-a -o %i)" "$jh" "lab a lists its held job"
is "$(SLURM_CONF=$conf_b squeue -h -n only-in-a -o %i)" "" "lab b does not see lab a's job"

ok "lab a goes down" slurm-lab down "$A"
out=$(SLURM_CONF=$conf_b timeout 60 srun -t 1 hostname 2>>"$TEST_DIR/srun.err")
is "$out" "$host" "lab b still runs jobs after lab a's down"
slurm-lab status "$B" >/dev/null 2>&1
is "$?" 0 "lab b's daemons are all running"
