#!/usr/bin/env bash
# The multi-host lab composes with --accounting (MariaDB and
# slurmdbd on the controller host) and --rest (slurmrestd there, on a UNIX
# socket): sacctmgr on a login host reaches slurmdbd across hosts, a job
# run from login1 on compute1 is in sacct, slurmrestd answers and lists
# the compute hosts; --release with them and --port-base are refused; down
# leaves no database or daemon running.  With --managed (and --accounting:
# the service's slurm.conf keeps slurmdbd) the emulator (on
# the api host) forwards callSlurmRestApi to ctld's slurmrestd: mdcctl
# --remote jobs on login1 shows the queue with no Slurm of its own.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

hosts_need curl jq mariadbd mariadb-install-db slurmdbd sacctmgr sacct slurmrestd

# refusals first: nothing is started
at_exit "slurm-lab down '$TEST_DIR/no' >/dev/null 2>&1"
out=$(slurm-lab up "$TEST_DIR/no" --hosts --release 24.11 --rest 2>&1); rc=$?
plan 18
is "$rc" 2 "up --hosts --release 24.11 --rest is refused (exit 2)"
like "$out" "--release 24.11 with --hosts does not work with --rest yet" "... saying so"
like "$(slurm-lab up "$TEST_DIR/no" --hosts --port-base 7000 2>&1)" "--port-base does not apply to --hosts" \
	"up --hosts --port-base is refused, saying why"

show_on_fail "$D/hosts/ctld/log/slurmdbd.log" "$D/hosts/ctld/log/mariadb.log" "$D/hosts/ctld/log/slurmrestd.out"
hosts_up --accounting --rest --compute 1 --login 1

p=$(cat "$D/hosts/ctld/run/slurmdbd.pid" 2>/dev/null)
is "$(cat "/proc/$p/comm" 2>/dev/null):$(readlink "/proc/$p/ns/net" 2>/dev/null)" \
	"slurmdbd:$(readlink "/proc/$(cat "$D/hosts/ctld/run/slurmctld.pid")/ns/net")" \
	"slurmdbd runs on the controller host (its network namespace)"
is "$(on login1 sacctmgr -n -P show cluster format=cluster 2>&1)" lab \
	"sacctmgr on login1 reaches slurmdbd on ctld: cluster lab registered"
is "$(on login1 scontrol show config | sed -n 's/^AccountingStorageType *= *//p')" accounting_storage/slurmdbd \
	"slurmctld stores accounting in slurmdbd"
is "$(on login1 timeout 60 srun -t 1 hostname 2>&1)" compute1 "srun from login1 runs on compute1"
jid=$(on login1 squeue -h -t all -o %i | sort -n | tail -1)
recorded() { [ "$(on login1 sacct -n -P -X -j "$jid" -o NodeList,State 2>/dev/null)" = "compute1|COMPLETED" ]; }
ok "sacct on login1 has the job, on compute1, COMPLETED" wait_until 60 recorded

like "$MDC_SLURMRESTD" "^unix:$D/hosts/ctld/run/slurmrestd\.sock$" "up prints MDC_SLURMRESTD: ctld's socket"
sock=${MDC_SLURMRESTD#unix:}
ver=$(ls "$(dirname "$(ls /usr/lib/*/slurm-wlm/auth_munge.so | head -1)")"/openapi_v*.so 2>/dev/null |
	sed 's/.*openapi_\(v[0-9_]*\)\.so/\1/; s/_/./g' | sort -V | tail -1)
like "$(curl -sS --max-time 10 --unix-socket "$sock" "http://lab/slurm/$ver/ping" | jq -c '.pings[0].ping // .pings[0]')" \
	'UP' "slurmrestd on ctld answers ping: slurmctld UP"
is "$(curl -sS --max-time 10 --unix-socket "$sock" "http://lab/slurm/$ver/nodes" | jq -r '[.nodes[].name] | join(" ")')" \
	compute1 "slurmrestd lists the compute host"
is "$(on login1 hostname):$(ls -d "$D/hosts/login1/run/slurmrestd.sock" 2>/dev/null)" "login1:" \
	"(slurmrestd runs on ctld only)"

ok "down stops the lab" slurm-lab down "$D"
left() {
	for p in /proc/[0-9]*; do
		tr "\0" " " 2>/dev/null <"$p/cmdline" | grep -q "$D/" && echo "$p"
	done | wc -l
}
is "$(left)" 0 "down leaves no MariaDB, slurmdbd or slurmrestd running"

# --managed --accounting --rest: the service's slurm.conf keeps the
# accounting lines; its callSlurmRestApi reaches ctld's slurmrestd
D=$TEST_DIR/m
show_on_fail "$D/hosts/api/log/emulator.log" "$TEST_DIR/remote.err"
hosts_up --managed --accounting --rest --compute 1 --login 1 --lro-seconds 0
is "$(on login1 scontrol show config | sed -n 's/^AccountingStorageType *= *//p'):$(on login1 sacctmgr -n -P show cluster format=cluster 2>&1)" \
	accounting_storage/slurmdbd:lab "the managed cluster's slurm.conf stores accounting in slurmdbd on ctld"
export MDC_CONF=/dev/null
j=$(on login1 sbatch --parsable -t 5 -J hostsrest --wrap 'sleep 120' 2>&1)
at_exit "slurm-lab exec '$D' login1 -- scancel '$j' 2>/dev/null"
running() { [ "$(on login1 squeue -h -j "$j" -o %T)" = RUNNING ]; }
ok "a job runs on the managed lab" wait_until 30 running
out=$(on login1 env SLURM_CONF=/nonexistent PATH=/nonexistent "$top_builddir/mdcctl" --remote jobs 2>"$TEST_DIR/remote.err")
is "$?" 0 "mdcctl --remote jobs on login1, with no Slurm of its own, succeeds"
like "$out" "^$j +debug +RUNNING +root +compute-0 +hostsrest\$" \
	"... showing the job on compute-0, read through the api host from ctld's slurmrestd"
