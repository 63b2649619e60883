#!/usr/bin/env bash
# The multi-host lab of another release (up --hosts --release
# 24.11): every host's munged and Slurm daemons run chrooted in the
# release's Debian root inside the host's namespaces, with the host's own
# run/log/spool/state and the shared /home; srun and sbatch from a login
# host run on the compute hosts in that root; combinations that cannot
# work yet are refused; down leaves nothing.  (Jobs run as root: the
# root's /etc/passwd knows no lab user, and release-root exec needs root.)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

REL=24.11
hosts_need
# (the root is built by lab_release.t / scripts/test --release; not here)
RROOT=$("$top_srcdir/scripts/release-root" path "$REL" 2>/dev/null) && [ -x "$RROOT/usr/sbin/slurmd" ] ||
	skip_all "no Slurm $REL root (scripts/release-root ensure $REL)"

out=$(slurm-lab up "$TEST_DIR/no" --hosts --release "$REL" --accounting 2>&1); rc=$?
plan 12
like "$rc:$out" "^2:.*--release $REL with --hosts does not work with --accounting yet" \
	"--release with --accounting on --hosts is refused (exit 2), saying so"
like "$(slurm-lab up "$TEST_DIR/no" --hosts --release 9.9 2>&1)" "unknown --release '9.9'" \
	"an unknown release is refused"

chmod 0755 "$TEST_DIR"
show_on_fail "$D/hosts/compute1/log/slurmd.log" "$D/hosts/compute2/log/slurmd.log"
hosts_up --release "$REL" --compute 2 --login 1

like "$PATH" "^$D/bin:" "up prints the release's wrappers first on PATH"
like "$(on login1 sinfo -V)" "^slurm(-wlm)? $REL\." "sinfo on login1 is Slurm $REL"
for h in ctld compute1 compute2; do
	f=slurmd; [ "$h" = ctld ] && f=slurmctld
	p=$(cat "$D/hosts/$h/run/$f.pid" 2>/dev/null)
	echo "$h $(cat "/proc/$p/comm" 2>/dev/null) $(readlink "/proc/$p/root" 2>/dev/null)"
done >"$TEST_DIR/daemons"
is "$(tr '\n' ' ' <"$TEST_DIR/daemons")" "ctld slurmctld $RROOT compute1 slurmd $RROOT compute2 slurmd $RROOT " \
	"slurmctld and each slurmd run chrooted in the $REL root, with their host's own pidfile"
p=$(cat "$D/hosts/compute2/run/slurmd.pid")
isnt "$(readlink "/proc/$p/ns/net")" "$(readlink /proc/self/ns/net)" "compute2's slurmd runs in its host's network namespace"
like "$(tr '\0' ' ' <"/proc/$(cat "$D/hosts/ctld/run/munged.pid")/cmdline"):$(readlink "/proc/$(cat "$D/hosts/ctld/run/munged.pid")/root")" \
	"^munged .*:$RROOT\$" "munged runs in the root too"
is "$(on login1 timeout 60 srun -N2 -t 1 sh -c 'echo $(hostname) $(. /etc/os-release; echo $VERSION_CODENAME)' 2>&1 | sort | tr '\n' ' ')" \
	"compute1 trixie compute2 trixie " "srun -N2 from login1 runs a task on each compute host, in the root"
jid=$(on login1 sh -c "cd /home && sbatch --parsable -t 1 -w compute2 -o /home/out-%j --wrap 'echo \$(hostname) \$SLURM_SUBMIT_HOST'" 2>&1)
like "$jid" '^[0-9]+$' "a batch job submitted on login1"
done_() { [ -s "$D/shared/home/out-$jid" ] && [ -z "$(on login1 squeue -h -j "$jid" 2>/dev/null)" ]; }
wait_until 60 done_
is "$(cat "$D/shared/home/out-$jid" 2>&1)" "compute2 login1" \
	"it ran on compute2 and wrote to the shared /home"

ok "down stops the lab" slurm-lab down "$D"
left() {
	grep -c " $D/" /proc/mounts
	for p in /proc/[0-9]*; do
		tr "\0" " " 2>/dev/null <"$p/cmdline" | grep -q "$D/" && echo "$p"
	done | wc -l
}
is "$(left | tr '\n' ' ')" "0 0 " "down leaves no mount or process of the release's daemons"
