#!/usr/bin/env bash
# Issue 24 item 3: a job that names no account or QOS runs with its
# user's default account and that association's DefaultQOS.  job_submit/mdc
# judges a fall-back partition's AllowAccounts/AllowQos with those, so a
# fall-back the defaults would not pass is refused at submission with the
# reason, and naming an allowed account/QOS is accepted.  On a lab with a
# real slurmdbd (slurm-lab --accounting); the jobs are root's (root's
# default account is "root", made by `sacctmgr add cluster`).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
for c in sacctmgr slurmdbd mariadbd mariadb-install-db; do
	command -v "$c" >/dev/null || skip_all "$c is not installed (scripts/install-deps)"
done
lab_need

export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT MDC_ACCESS_TOKEN
printf 'JobSubmitMode = reject\n' >"$MDC_CONF"

lab_up --accounting --plugindir "$JS_DIR" --job-submit mdc --plugstack "required $SPANK"
plan 9
CONF_PATH=$LAB_DIR/etc/slurm.conf
show_on_fail "$TEST_DIR/err" "$TEST_DIR/sacctmgr.log"

sam() { timeout 20 sacctmgr -i "$@" >>"$TEST_DIR/sacctmgr.log" 2>&1; }
# root: default account root (DefaultQOS qa), also in account acb
sam add qos qa,qb && sam add account acb && sam add user root account=acb &&
	sam modify user root set qos=normal,qa,qb defaultqos=qa
is "$?" 0 "sacctmgr: account acb, QOS qa and qb, root's DefaultQOS qa"
cat >>"$CONF_PATH" <<'EOF2'
PartitionName=low Nodes=compute MaxTime=INFINITE State=DOWN
PartitionName=fbacct Nodes=compute MaxTime=INFINITE State=UP AllowAccounts=acb
PartitionName=fbqos Nodes=compute MaxTime=INFINITE State=UP AllowQos=qb
EOF2
scontrol reconfigure
parts_up() { scontrol show partition fbqos 2>/dev/null | grep -q 'AllowQos=qb'; }
ok "the lab has low (DOWN), fbacct (AllowAccounts=acb), fbqos (AllowQos=qb)" wait_until 30 parts_up
sb() { timeout 30 sbatch --parsable -p low -t 1 --mdc-wait-time=1h \
	--mdc-on-timeout=fall-back-to-on-demand "$@" --wrap true 2>&1; }

# slurmctld's copy of the associations comes from slurmdbd a moment
# after sacctmgr: until it has root's DefaultQOS a job may be accepted
# (cancelled here, and tried again)
refused() {
	local out
	out=$(sb "$@")
	if [[ "$out" =~ ^[0-9]+$ ]]; then scancel "$out"; return 1; fi
	printf '%s\n' "$out" >"$TEST_DIR/refused"
}
ok "slurmctld has root's associations" wait_until 30 refused --mdc-fallback-partition=fbqos
out=$(sb --mdc-fallback-partition=fbacct)
like "$out" "^sbatch: error: fallback partition 'fbacct' would not run the job: the job names no account and QOS and gets its user's default: account 'root' is not in the AllowAccounts=acb of partition 'fbacct'" \
	"no -A: the default account root is judged against fbacct's AllowAccounts and refused"
like "$(sb -A acb --mdc-fallback-partition=fbacct)" '^[0-9]+$' "-A acb: the fall-back to fbacct is accepted"
out=$(sb --mdc-fallback-partition=fbqos)
like "$out" "^sbatch: error: fallback partition 'fbqos' would not run the job: the job names no account and QOS and gets its user's default: QOS 'qa' is not in the AllowQos=qb of partition 'fbqos'" \
	"no --qos: the DefaultQOS qa is judged against fbqos's AllowQos and refused"
like "$(sb --qos=qb --mdc-fallback-partition=fbqos)" '^[0-9]+$' "--qos=qb: the fall-back to fbqos is accepted"
# the refusal names the default in slurmctld's log too
is "$(grep -c "refused: fallback partition 'fbacct' would not run the job: the job names no account and QOS and gets its user's default: account 'root'" \
	"$LAB_DIR/log/slurmctld.log")" 1 "slurmctld's log has the refusal with its reason"
is "$(squeue -h -t PD -o %i | wc -l)" 2 "only the two accepted jobs are pending"
