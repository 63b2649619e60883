#!/usr/bin/env bash
# Jobs across hosts with both plugins: srun on a login host runs on the
# compute host it names with the job's MDC_CLUSTER (spank_mdc's remote
# context there) and its prolog/epilog on that host; with an mdcd on each
# login host (JobWaitEnforceInterval=1, LockDir on the shared storage) one
# of them is the cluster's enforcer and the other stands by; a job whose
# wait ran out is moved to its fallback partition exactly once, by the
# enforcer alone, and runs on a compute host; when the enforcer stops, the
# other mdcd takes over and moves the next job.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
MDCD=$top_builddir/mdcd
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
[ -x "$MDCD" ] || skip_all "mdcd is not built"
hosts_need runuser useradd jq

CLUSTER=projects/p1/locations/us-central1/modelDevelopmentClusters/hosts
chmod 0755 "$TEST_DIR"
# one mdc.conf for the plugins and the mdcds, as /etc/slurm would be
export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT MDC_ACCESS_TOKEN MDC_BROKER
mkdir -p "$D/shared/storage/lock"
cat >"$MDC_CONF" <<EOF
JobSubmitMode = reject
JobWaitMax = 1h
Endpoint = http://127.0.0.1:9
Cluster = $CLUSTER
SlurmConf = $D/etc/slurm.conf
MungeSocket = $D/run/munge.socket
LockDir = $D/shared/storage/lock
JobWaitEnforceInterval = 1
EOF
chmod 0644 "$MDC_CONF"

show_on_fail "$D/hosts/login1/log/mdcd.log" "$D/hosts/login2/log/mdcd.log" "$D/hosts/compute1/log/slurmd.log"
hosts_up --plugindir "$JS_DIR" --job-submit mdc \
	--plugstack "required $SPANK cluster=$CLUSTER log=$D/spool/prolog.log"
plan 16

hosts_user mdchj

# the spank plugin's remote context and prolog/epilog on the compute host
is "$(on login1 timeout 60 srun -t 1 -w compute2 sh -c 'echo $(hostname) $MDC_CLUSTER' 2>&1)" \
	"compute2 $CLUSTER" "srun from login1 runs on compute2 with the job's MDC_CLUSTER"
jid=$(on login1 squeue -h -t all -o %i | sort -n | tail -1)
prolog_done() { grep -q "epilog job=$jid" "$D/hosts/compute2/spool/prolog.log" 2>/dev/null; }
wait_until 30 prolog_done
like "$(cat "$D/hosts/compute2/spool/prolog.log" 2>&1)" "prolog job=$jid MDC_CLUSTER=$CLUSTER" \
	"the job's prolog ran on compute2 with MDC_CLUSTER"
ok "and its epilog" prolog_done
nok "nothing of it ran on compute1" grep -qs "job=$jid " "$D/hosts/compute1/spool/prolog.log"

# partitions for the wait policy: reserved is DOWN, ondemand UP
cat >>"$D/etc/slurm.conf" <<'EOF'
PartitionName=reserved Nodes=compute MaxTime=INFINITE State=DOWN
PartitionName=ondemand Nodes=compute MaxTime=INFINITE State=UP
EOF
on ctld scontrol reconfigure
part_up() { on login1 scontrol show partition ondemand 2>/dev/null | grep -q 'State=UP'; }
ok "the cluster has reserved (DOWN) and ondemand" wait_until 30 part_up

# an mdcd on each login host
start_mdcd() {
	on "$1" "$MDCD" -f "$MDC_CONF" -s "$D/run/mdcd/mdcd.sock" -d "$D/state/mdcd" \
		-p "$D/run/mdcd.pid" -l "$D/log/mdcd.log"
}
ok "mdcd starts on login1" start_mdcd login1
said() { grep -q "$2" "$D/hosts/$1/log/mdcd.log" 2>/dev/null; }
wait_until 20 said login1 "is the cluster's enforcer"
ok "mdcd starts on login2" start_mdcd login2
wait_until 20 said login2 "standing by"
ok "login1's mdcd is the enforcer" said login1 "this mdcd is the cluster's enforcer"
like "$(grep 'standing by' "$D/hosts/login2/log/mdcd.log" | head -1)" "the cluster's enforcer is mdcd pid [0-9]+ on login1" \
	"login2's mdcd stands by, naming the enforcer on login1"
at_exit "kill \$(cat '$D/hosts/login1/run/mdcd.pid' '$D/hosts/login2/run/mdcd.pid' 2>/dev/null) 2>/dev/null"

field() { on login1 scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
state_is() { [ "$(field "$1" JobState)" = "$2" ]; }
submit() {
	on "$1" runuser -u "$U" -- sh -c "cd /home/$U && sbatch --parsable -p reserved -t 1 \
		--mdc-wait-time=3s --mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand \
		-o /home/$U/job-%j.out --wrap 'hostname'" 2>&1
}
moves() { cat "$D"/hosts/login*/state/mdcd/audit.log 2>/dev/null | jq -c --argjson j "$1" \
	'select(.op == "enforce") | .moved[]? | select(.job == $j)' | wc -l; }

j1=$(submit login2)
like "$j1" '^[0-9]+$' "a user submits a job with a wait policy on login2"
ok "the wait ran out: the job ran in ondemand" wait_until 60 state_is "$j1" COMPLETED
is "$(field "$j1" Partition)" ondemand "the job was moved to its fallback partition"
is "$(moves "$j1")" 1 "it was moved exactly once, however many mdcds run"
is "$(grep -c "job $j1: waited" "$D/hosts/login1/log/mdcd.log"):$(grep -c "job $j1: waited" "$D/hosts/login2/log/mdcd.log")" \
	"1:0" "by the enforcer on login1 alone"

# the enforcer stops: the other takes over
kill "$(cat "$D/hosts/login1/run/mdcd.pid")"
wait_until 20 said login2 "this mdcd is the cluster's enforcer"
ok "login2's mdcd takes over when login1's stops" said login2 "this mdcd is the cluster's enforcer"
j2=$(submit login1)
wait_until 60 state_is "$j2" COMPLETED
is "$(field "$j2" Partition):$(moves "$j2"):$(grep -c "job $j2: waited" "$D/hosts/login2/log/mdcd.log")" \
	"ondemand:1:1" "the next job is moved once, by login2's mdcd"
