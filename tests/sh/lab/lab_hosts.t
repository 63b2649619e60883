#!/usr/bin/env bash
# The multi-host lab (slurm-lab up --hosts): a controller, two login and two
# compute hosts, each in namespaces of its own with its own address,
# hostname and munged; jobs submitted on a login host run on the compute
# host they name and write to the shared /home; the lab's addresses are not
# reachable from this machine; down (also after a failed up) leaves no
# namespace, link, mount or process.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

hosts_need runuser useradd
chmod 0755 "$TEST_DIR"   # the job's user reads slurm.conf under it
show_on_fail "$D/hosts/compute1/log/slurmd.log" "$D/hosts/compute2/log/slurmd.log"
hosts_up
plan 24

# the layout: five hosts, one bridge, addresses of the test range
hosts=$(slurm-lab hosts "$D")
is "$(awk '{print $1 ":" $2 ":" $4}' <<<"$hosts" | tr '\n' ' ')" \
	"ctld:controller:up login1:login:up login2:login:up compute1:compute:up compute2:compute:up " \
	"hosts lists the controller, two login and two compute hosts, all up"
like "$(awk '{print $3}' <<<"$hosts" | tr '\n' ' ')" '^(198\.1[89]\.[0-9]+\.[0-9]+ ){5}$' \
	"every host has an address in 198.18.0.0/15"
ctld_ip=$(awk '$1 == "ctld" {print $3}' <<<"$hosts")
c2_ip=$(awk '$1 == "compute2" {print $3}' <<<"$hosts")

is "$(slurm-lab exec "$D" login1 -- hostname)" login1 "exec runs on login1 (its own hostname)"
is "$(slurm-lab exec "$D" compute2 -- hostname)" compute2 "exec runs on compute2"
like "$(slurm-lab exec "$D" login2 -- ip -br -4 addr show eth0)" " $(awk '$1 == "login2" {print $3}' <<<"$hosts" | sed 's/\./\\./g')/24" \
	"login2 has its own address on its own link"
is "$(slurm-lab exec "$D" login1 -- getent hosts compute2 | awk '{print $1}')" "$c2_ip" \
	"host names resolve inside the lab"

# munge: one key, a munged per host; a credential made on a login host is
# decoded on a compute host's own munged
sock=$D/run/munge.socket
for h in ctld login1 login2 compute1 compute2; do
	p=$(cat "$D/hosts/$h/run/munged.pid" 2>/dev/null)
	[ -n "$p" ] && [ -d "/proc/$p" ] && echo "$h"
done >"$TEST_DIR/munged.hosts"
is "$(tr '\n' ' ' <"$TEST_DIR/munged.hosts")" "ctld login1 login2 compute1 compute2 " \
	"every host runs its own munged"
cred=$(slurm-lab exec "$D" login1 -- munge -n --socket="$sock")
like "$(slurm-lab exec "$D" compute1 -- unmunge --socket="$sock" <<<"$cred" 2>&1)" 'STATUS: *Success' \
	"a credential from login1 is valid on compute1 (one key)"

# Slurm across hosts
is "$(slurm-lab exec "$D" login1 -- sinfo -h -N -o '%N %t' | tr '\n' ' ')" "compute1 idle compute2 idle " \
	"sinfo on login1 shows both compute hosts idle"
is "$(slurm-lab exec "$D" login2 -- timeout 60 srun -N2 -t 1 hostname 2>&1 | sort | tr '\n' ' ')" \
	"compute1 compute2 " "srun -N2 from login2 runs one task on each compute host"
p=$(cat "$D/hosts/compute1/run/slurmd.pid")
is "$(cat "/proc/$p/comm" 2>/dev/null)" slurmd "compute1's slurmd runs with its own pidfile"
isnt "$(readlink "/proc/$p/ns/net")" "$(readlink /proc/self/ns/net)" "compute1's slurmd runs in another network namespace"

hosts_user mdchl
jid=$(slurm-lab exec "$D" login1 --user "$U" -- sh -c "cd /home/$U && sbatch --parsable -t 1 -w compute2 -o /home/$U/slurm-%j.out --wrap 'echo \$(hostname) \$(id -un) \$SLURM_SUBMIT_HOST'" 2>&1)
like "$jid" '^[0-9]+$' "a user submits a batch job on login1"
job_done() { [ -s "$D/shared/home/$U/slurm-$jid.out" ] && [ -z "$(slurm-lab exec "$D" login1 -- squeue -h -j "$jid" 2>/dev/null)" ]; }
wait_until 60 job_done
is "$(cat "$D/shared/home/$U/slurm-$jid.out" 2>&1)" "compute2 $U login1" \
	"the job ran on compute2 as the user and wrote to the shared /home"
is "$(slurm-lab exec "$D" ctld -- scontrol show job "$jid" | grep -o 'JobState=[A-Z]*')" JobState=COMPLETED \
	"the controller saw the job complete"

# the lab's traffic stays inside the lab
# (a connect from this machine is no proof: a sandbox's proxy may answer
# any address)
id=$(printf %s "$D" | md5sum | cut -c1-6)
is "$(ip -br -4 addr show dev "mdcb$id" | awk '{print $3}'):$(ip route get "$ctld_ip" | grep -c "dev mdcb$id")" ":0" \
	"the lab's bridge has no address or route on this machine"
ok "login1 reaches the controller's port" slurm-lab exec "$D" login1 -- timeout 3 bash -c "exec 3<>/dev/tcp/$ctld_ip/6817"

# usage errors
nok "exec names an unknown host" slurm-lab exec "$D" compute9 -- true
like "$(slurm-lab up "$D" --hosts 2>&1)" "already running" "up refuses a directory whose lab runs"

# down: nothing left
leftovers() {
	ip netns list | grep -c "^mdc$id-"
	ip -br link | grep -c "^mdcb$id\|^m$id"
	grep -c " $D/" /proc/mounts
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/cwd" 2>/dev/null)" = "$D" ] && echo "$p"
		tr "\0" " " 2>/dev/null <"$p/cmdline" | grep -q "$D/" && echo "$p"
	done | sort -u | wc -l
}
ok "down stops the lab" slurm-lab down "$D"
is "$(leftovers | tr '\n' ' ')" "0 0 0 0 " "down leaves no namespace, link, mount or process"
ok "down twice is fine" slurm-lab down "$D"

# a failed up (slurmctld refuses the config) leaves nothing either
nok "up fails when slurmctld cannot start" env SLURM_LAB_TIMEOUT=5 slurm-lab up "$D" --hosts \
	--job-submit no_such_plugin_mdc
is "$(leftovers | tr '\n' ' ')" "0 0 0 0 " "a failed up leaves no namespace, link, mount or process"
