#!/usr/bin/env bash
# Keys that need a slurmctld restart: the service
# reloads slurm.conf, Slurm keeps the old value until slurmctld restarts;
# plan/set say so, drift reports the key as pending restart (never as a
# runtime change to adopt back), and `slurm-lab up` after `down` with
# such a key in the spec works and starts slurmctld with it.  Also
# `up --lro-seconds` reaches the emulator.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
lab_up --managed --lro-seconds 0
plan 24

MDCCTL=$top_builddir/mdcctl
export MDC_CONF=$TEST_DIR/mdc.conf
: >"$MDC_CONF"
log=$LAB_DIR/emu/requests.log
show_on_fail "$log" "$TEST_DIR/up2.err"
patches() { grep -c '"method":"PATCH"' "$log"; }
cval() { scontrol show config | sed -n "s/^$1 *= //p"; }

emu_pid=$(cat "$LAB_DIR/run/emulator.pid")
like "$(tr '\0' ' ' <"/proc/$emu_pid/cmdline")" ' --lro-seconds 0 ' "up --lro-seconds 0 is passed to the emulator"

# --- the change: a reload applies everything but the restart key
n=$(lab_syncs)
out=$("$MDCCTL" --yes config set SchedulerType=sched/builtin 2>&1)
is "$?" 0 "config set SchedulerType=sched/builtin"
like "$out" '^restart needed: SchedulerType$' "it says a restart is needed"
like "$out" "^  when: the service reloads slurm.conf \\(scontrol reconfigure\\) and does not restart slurmctld for a setting: it keeps its old value until slurmctld's next restart" \
	"and how and when the restart happens"
lab_wait_sync "$n" 60
is "$(cut -d' ' -f2- "$LAB_DIR/run/sync.count")" "reload 0" "the emulator's reload succeeded"
is "$(cat "$LAB_DIR/run/restart.pending" 2>&1)" SchedulerType "the lab notes the key pending restart"
like "$(grep '^SchedulerType=' "$SLURM_CONF")" '^SchedulerType=sched/builtin$' "slurm.conf has the new value"
is "$(cval SchedulerType)" sched/backfill "slurmctld still runs the old one"
like "$("$LAB_SCRIPT" status "$LAB_DIR" 2>&1)" '^restart_pending SchedulerType$' "slurm-lab status shows it"

# --- drift: pending restart, not drift, never adopted back
j=$("$MDCCTL" --format json drift)
is "$(jq -c '[.count, [.pending_restart[] | [.scope, .key, .file, .slurmctld, .adoptable]]]' <<<"$j")" \
	'[0,[["config","SchedulerType","sched/builtin","sched/backfill",false]]]' \
	"drift --format json: no settings drift, SchedulerType pending restart"
out=$("$MDCCTL" drift)
like "$out" '^pending restart: slurm.conf has these keys, slurmctld runs its old value until it restarts$' \
	"text: the pending restart section"
like "$out" '^config +SchedulerType +sched/backfill +sched/builtin$' "with slurmctld's and the file's values"
unlike "$out" '^no drift' "no false 'no drift'"
before=$(patches)
out=$("$MDCCTL" --yes drift --adopt --key SchedulerType 2>&1)
is "$?" "$EXIT_REFUSED" "--adopt --key SchedulerType is refused"
like "$out" "'SchedulerType' cannot be adopted: it waits for a slurmctld restart" "saying it waits for a restart"
out=$("$MDCCTL" --yes drift --adopt 2>&1)
like "$out" '^no drift: nothing to adopt$' "--adopt adopts nothing back"
is "$(patches)" "$before" "nothing was sent"

# --- down, then up again: the kept spec holds the restart key
ok "slurm-lab down" "$LAB_SCRIPT" down "$LAB_DIR"
out=$("$LAB_SCRIPT" up "$LAB_DIR" --managed --lro-seconds 0 2>"$TEST_DIR/up2.err")
is "$?" 0 "slurm-lab up after down with SchedulerType in the spec"
eval "$out"
like "$(cat "$TEST_DIR/up2.err")" 'slurm.conf holds SchedulerType \(needs a slurmctld restart\): restarting slurmctld and slurmd' \
	"up restarts slurmctld for the pending key, as a booting cluster would"
is "$(cval SchedulerType)" sched/builtin "slurmctld runs the new value"
ok "no restart is pending any more" test ! -e "$LAB_DIR/run/restart.pending"
is "$("$MDCCTL" drift)" "no drift: the live slurmctld matches the managed spec" "nothing drifts"
like "$(timeout 60 srun -t 1 hostname 2>&1)" "^$(hostname -s)\$" "jobs run"
