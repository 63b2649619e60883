#!/usr/bin/env bash
# Node pools are hosts (managed multi-host lab): the created cluster's
# pool of two nodes is two compute hosts; `mdcctl nodepool scale` to three
# starts a third host whose slurmd runs jobs; the guards hold on real
# hosts: a scale-down under a running job, or under a pending job that
# asked for the node, and the removal of a partition with a queued job are
# refused with nothing sent; a scale-down with no job on the node stops
# and removes its host.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

hosts_need openssl jq curl
[ -x "$top_builddir/mdc-emulator" ] && [ -x "$top_builddir/mdcctl" ] || skip_all "the tools are not built"
show_on_fail "$D/hosts/api/log/emulator.log" "$TEST_DIR/out"
hosts_up --managed --compute 2 --login 1 --lro-seconds 0
export MDC_CONF=/dev/null
plan 21
M=$top_builddir/mdcctl
on() { slurm-lab exec "$D" login1 -- "$@"; }
computes() { slurm-lab hosts "$D" | awk '$2 == "compute" {printf "%s ", $1}'; }
nodes() { on sinfo -h -N -o '%N %t' | sort | tr '\n' ' '; }
patches() { grep -c '"method":"PATCH"' "$D/emu/requests.log"; }
syncs() { read -r n _ <"$D/emu/sync.count"; echo "$n"; }
synced() { [ "$(syncs)" -gt "$1" ]; }

is "$(computes)" "compute-0 compute-1 " "the pool's two nodes are two compute hosts"
is "$(nodes)" "compute-0 idle compute-1 idle " "and both slurmds registered"

# scale up: a third host
n=$(syncs)
on "$M" --yes nodepool scale compute --min 3 --max 3 >"$TEST_DIR/out" 2>&1
is "$?" 0 "nodepool scale compute to 3 is accepted"
wait_until 60 synced "$n"
is "$(computes)" "compute-0 compute-1 compute-2 " "the regeneration started a third compute host"
node_ok() { [ "$(nodes)" = "compute-0 idle compute-1 idle compute-2 idle " ]; }
ok "its slurmd registered: three idle nodes" wait_until 30 node_ok
is "$(on timeout 60 srun -N3 -t 1 hostname 2>&1 | sort | tr '\n' ' ')" "compute-0 compute-1 compute-2 " \
	"srun -N3 runs on the three hosts"

# a running job on compute-2: the scale-down is refused, nothing sent
jid=$(on sbatch --parsable -t 5 -w compute-2 --wrap 'sleep 300')
running() { on squeue -h -j "$jid" -o %T | grep -qx RUNNING; }
wait_until 30 running
p=$(patches)
out=$(on "$M" --yes nodepool scale compute --min 2 --max 2 2>&1)
is "$?" "$EXIT_REFUSED" "a scale-down under a running job is refused"
like "$out" "loses the nodes of jobs $jid \(RUNNING on compute-2\)" "naming the job and its node"
is "$(patches):$(computes)" "$p:compute-0 compute-1 compute-2 " "nothing was sent and the host runs on"
on scancel "$jid"

# a pending job that asked for compute-2 by name
on scontrol update NodeName=compute-2 State=DRAIN Reason=test
jid=$(on sbatch --parsable -t 5 -w compute-2 --wrap 'sleep 300')
out=$(on "$M" --yes nodepool scale compute --min 2 --max 2 2>&1)
like "$?:$out" "^$EXIT_REFUSED:.*jobs $jid \(PENDING on compute-2\)" \
	"a pending job that asked for the node holds the scale-down too"
on scancel "$jid"

# a partition with a queued job
on "$M" --yes partition create held --node-pools compute State=DOWN >"$TEST_DIR/out" 2>&1
is "$?" 0 "a DOWN partition 'held' is created"
held_up() { on scontrol show partition held >/dev/null 2>&1; }
wait_until 30 held_up
hj=$(on sbatch --parsable -t 1 -p held --wrap true)
p=$(patches)
out=$(on "$M" --yes partition delete held 2>&1)
like "$?:$out" "^$EXIT_REFUSED:.*$hj" "deleting a partition with a queued job is refused, naming the job"
is "$(patches)" "$p" "and nothing was sent"
on scancel "$hj"

# no job left on compute-2: the scale-down removes its host
on scontrol update NodeName=compute-2 State=RESUME
n=$(syncs)
on "$M" --yes nodepool scale compute --min 2 --max 2 >"$TEST_DIR/out" 2>&1
is "$?" 0 "with no job on compute-2 the scale-down is accepted"
wait_until 60 synced "$n"
is "$(computes)" "compute-0 compute-1 " "the regeneration stopped and removed the third host"
id=$(printf %s "$D" | md5sum | cut -c1-6)
is "$(ip netns list | grep -c "^mdc$id-compute-2")" 0 "its namespace is gone"

# the login pool recreated (a new image): refused, then forced
( slurm-lab exec "$D" login1 -- sleep 600 ) 2>/dev/null &
session=$!
at_exit "kill $session 2>/dev/null"
sleep 0.5
p=$(patches)
out=$(on "$M" --yes nodepool image login --pin projects/x/global/images/next 2>&1)
like "$?:$out" "^$EXIT_REFUSED:.*recreating its nodes \(a login node loses its SSH sessions" \
	"a change that recreates the login host is refused"
is "$(patches)" "$p" "and nothing was sent"
n=$(syncs)
on "$M" --yes --allow-recreate nodepool image login --pin projects/x/global/images/next >"$TEST_DIR/out" 2>&1
is "$?" 0 "with --allow-recreate it is sent"
wait_until 60 synced "$n"
gone_s() { ! kill -0 "$session" 2>/dev/null; }
ok "the recreation ended the session on login1" wait_until 20 gone_s
is "$(on sinfo -h -o %P 2>&1 | head -1)" "debug*" "login1 works again after its recreation (its munged restarted)"
