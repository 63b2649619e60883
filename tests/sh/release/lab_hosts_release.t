#!/usr/bin/env bash
# The multi-host lab of another release (up --hosts --release
# 24.11): every host's munged and Slurm daemons run chrooted in the
# release's Debian root inside the host's namespaces, with the host's own
# run/log/spool/state and the shared /home; srun and sbatch from a login
# host run on the compute hosts in that root, as root and as a user of
# this machine (its /etc/passwd bound into the root on each host only,
# the cached root unchanged); combinations that cannot work yet are
# refused; down leaves nothing.  Then a managed release lab: the emulator
# is the release's build, chrooted on the api host, and its regeneration
# (a node pool scaled) adds a host and restarts the release's daemons.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

REL=24.11
hosts_need
# (the root is built by lab_release.t / scripts/test --release; not here)
RROOT=$("$top_srcdir/scripts/release-root" path "$REL" 2>/dev/null) && [ -x "$RROOT/usr/sbin/slurmd" ] ||
	skip_all "no Slurm $REL root (scripts/release-root ensure $REL)"

out=$(slurm-lab up "$TEST_DIR/no" --hosts --release "$REL" --accounting 2>&1); rc=$?
plan 26
like "$rc:$out" "^2:.*--release $REL with --hosts does not work with --accounting yet" \
	"--release with --accounting on --hosts is refused (exit 2), saying so"
like "$(slurm-lab up "$TEST_DIR/no" --hosts --release 9.9 2>&1)" "unknown --release '9.9'" \
	"an unknown release is refused"

chmod 0755 "$TEST_DIR"
# (before up: each host binds /etc/passwd as it is then)
mkdir -p "$D/shared/home"
hosts_user mdchr
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
as_u() { slurm-lab exec "$D" login1 --user "$U" -- "$@"; }
is "$(as_u timeout 60 srun -N1 -w compute1 -t 1 sh -c 'echo $(id -un) $(hostname)' 2>&1)" "$U compute1" \
	"srun as the lab user $U from login1 runs as $U on compute1"
jid=$(as_u sh -c "cd /home/$U && sbatch --parsable -t 1 -w compute2 -o /home/$U/out-%j --wrap 'id -un'" 2>&1)
done_() { [ -s "$D/shared/home/$U/out-$jid" ] && [ -z "$(on login1 squeue -h -j "$jid" 2>/dev/null)" ]; }
wait_until 60 done_
is "$(cat "$D/shared/home/$U/out-$jid" 2>&1) $(stat -c %U "$D/shared/home/$U/out-$jid" 2>&1)" "$U $U" \
	"a batch job of $U ran as $U and wrote its output as $U"

ok "down stops the lab" slurm-lab down "$D"
is "$(grep -c "^$U:" "$RROOT/etc/passwd")" 0 "the cached root's /etc/passwd never had the lab user"
left() {
	grep -c " $D/" /proc/mounts
	for p in /proc/[0-9]*; do
		tr "\0" " " 2>/dev/null <"$p/cmdline" | grep -q "$D/" && echo "$p"
	done | wc -l
}
is "$(left | tr '\n' ' ')" "0 0 " "down leaves no mount or process of the release's daemons"

# ---- a managed release lab
D=$TEST_DIR/lab2
b=$("$top_srcdir/scripts/release-root" builddir "$REL" "$top_srcdir" 2>/dev/null)
[ -x "$b/mdc-emulator" ] && export MDC_RELEASE_BUILDDIR=$b
show_on_fail "$D/hosts/api/log/emulator.log" "$TEST_DIR/scale.out"
hosts_up --release "$REL" --managed --broker --compute 2 --login 2 --lro-seconds 0
id=$(printf %s "$D" | md5sum | cut -c1-6)
emu_root() {
	local p
	for p in $(ip netns pids "mdc$id-api"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = mdc-emulator ] && readlink "/proc/$p/root"
	done
}
is "$(emu_root)" "$RROOT" "the emulator runs chrooted in the $REL root on the api host"
roots() {
	local h f p
	for h in ctld $(slurm-lab hosts "$D" | awk '$2 == "compute" {print $1}'); do
		f=slurmd; [ "$h" = ctld ] && f=slurmctld
		p=$(cat "$D/hosts/$h/run/$f.pid" 2>/dev/null)
		printf '%s:%s ' "$h" "$(readlink "/proc/$p/root" 2>/dev/null)"
	done
}
is "$(roots)" "ctld:$RROOT compute-0:$RROOT compute-1:$RROOT " \
	"the created cluster's pool is two compute hosts, slurmctld and slurmd in the root"
is "$(on login1 timeout 60 srun -N2 -t 1 hostname 2>&1 | sort | tr '\n' ' ')" "compute-0 compute-1 " \
	"srun -N2 runs on the pool's hosts"
ctld0=$(cat "$D/hosts/ctld/run/slurmctld.pid")
read -r n _ <"$D/emu/sync.count"
on login1 env MDC_CONF=/dev/null mdcctl --yes nodepool scale compute --min 3 --max 3 >"$TEST_DIR/scale.out" 2>&1
is "$?" 0 "nodepool scale compute to 3 with the release's mdcctl is accepted"
synced() { read -r m _ <"$D/emu/sync.count"; [ "$m" -gt "$n" ]; }
wait_until 90 synced
ctld1=$(cat "$D/hosts/ctld/run/slurmctld.pid" 2>/dev/null)
is "$(roots)$([ "$ctld0" != "$ctld1" ] && echo restarted)" \
	"ctld:$RROOT compute-0:$RROOT compute-1:$RROOT compute-2:$RROOT restarted" \
	"the regeneration added compute-2 and restarted slurmctld, all in the root"
three() { [ "$(on login1 sinfo -h -N -o '%N %t' | sort -u | awk '$2 == "idle"' | wc -l)" = 3 ]; }
wait_until 60 three
is "$(on login1 timeout 60 srun -N3 -t 1 hostname 2>&1 | sort | tr '\n' ' ')" "compute-0 compute-1 compute-2 " \
	"srun -N3 runs on the three hosts"
# the broker: the release's mdcd on login1, reached from login2 over TCP
p=$(cat "$D/hosts/login1/run/mdcd.pid" 2>/dev/null)
is "$(cat "/proc/$p/comm" 2>/dev/null):$(readlink "/proc/$p/root" 2>/dev/null)" "mdcd:$RROOT" \
	"--broker: mdcd runs on login1 chrooted in the root"
on login2 env MDC_CONF=/dev/null mdcctl --yes config set KillWait=47 >"$TEST_DIR/broker.out" 2>&1
is "$?:$MDC_BROKER" "0:login1:6830" "a change from login2 through the broker is accepted"
kw() { [ "$(on login1 scontrol show config | sed -n 's/^KillWait *= *\([0-9]*\) sec$/\1/p')" = 47 ]; }
ok "and reaches the live slurmctld (KillWait 47)" wait_until 60 kw
ok "down stops the managed lab" slurm-lab down "$D"
is "$(left | tr '\n' ' ')" "0 0 " "down leaves no mount or process of the managed release lab"
