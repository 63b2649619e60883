#!/usr/bin/env bash
# The plugins loaded by a real Slurm: job_submit/mdc refuses jobs for a
# partition made with `scontrol create` (reject mode), accepts and logs
# them in warn mode, checks partition changes, follows a regenerated
# slurm.conf; spank_mdc.so puts MDC_CLUSTER/MDC_ENDPOINT in the job and
# in the job prolog/epilog, and --mdc-managed-only fails srun for a
# runtime-only partition, with or without job_submit/mdc.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
lab_need

CLUSTER=projects/p1/locations/us-central1/modelDevelopmentClusters/c1
ENDPOINT=http://127.0.0.1:9
PLOG=$TEST_DIR/prolog.log
export MDC_CONF=$TEST_DIR/mdc.conf
unset MDC_JOB_SUBMIT_MODE MDC_CLUSTER MDC_ENDPOINT
printf 'JobSubmitMode = reject\n' >"$MDC_CONF"

lab_up --plugindir "$JS_DIR" --job-submit mdc \
	--plugstack "required $SPANK cluster=$CLUSTER endpoint=$ENDPOINT log=$PLOG"
plan 29
CTLD_LOG=$LAB_DIR/log/slurmctld.log
CONF_PATH=$LAB_DIR/etc/slurm.conf
show_on_fail "$TEST_DIR/err" "$PLOG"

job_done() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
ctld_has() { grep -qF -- "$1" "$CTLD_LOG"; }

like "$(cat "$CTLD_LOG")" 'job_submit/mdc: loaded, mode reject' "slurmctld loads job_submit/mdc in reject mode"

# a managed partition: accepted; the job and its prolog/epilog see the cluster
jid=$(timeout 30 sbatch --parsable -p debug -t 1 -o "$TEST_DIR/job.out" \
	--wrap 'echo "cluster=$MDC_CLUSTER endpoint=$MDC_ENDPOINT"' 2>"$TEST_DIR/err")
like "$jid" '^[0-9]+$' "sbatch -p debug is accepted"
wait_until 60 job_done "$jid"
is "$(cat "$TEST_DIR/job.out" 2>&1)" "cluster=$CLUSTER endpoint=$ENDPOINT" \
	"the job's environment has MDC_CLUSTER and MDC_ENDPOINT from plugstack.conf"
epilog_done() { grep -q "^job_epilog job=$jid " "$PLOG"; }
wait_until 30 epilog_done
is "$(grep "^job_prolog job=$jid " "$PLOG" 2>&1)" \
	"job_prolog job=$jid MDC_CLUSTER=$CLUSTER MDC_ENDPOINT=$ENDPOINT" \
	"the SPANK job prolog's environment has both"
is "$(grep "^job_epilog job=$jid " "$PLOG" 2>&1)" \
	"job_epilog job=$jid MDC_CLUSTER=$CLUSTER MDC_ENDPOINT=$ENDPOINT" \
	"the SPANK job epilog's environment has both"

out=$(timeout 60 srun --mdc-managed-only -p debug -t 1 printenv MDC_CLUSTER 2>"$TEST_DIR/err")
is "$out" "$CLUSTER" "srun --mdc-managed-only -p debug runs, with MDC_CLUSTER in the task"

# a runtime-only partition: refused at submission, with what to do
ok "scontrol create PartitionName=rt" scontrol create PartitionName=rt Nodes=ALL
msg="partition 'rt' exists only at runtime (it is not in '$CONF_PATH') and disappears at the next regeneration of slurm.conf: persist it with 'mdc-scontrol create PartitionName=rt ...' or use a managed partition (debug)"
out=$(timeout 30 sbatch --parsable -p rt -t 1 --wrap true 2>&1)
rc=$?
isnt "$rc" 0 "sbatch -p rt is refused"
is "$out" "sbatch: error: $msg
sbatch: error: Batch job submission failed: Invalid partition name specified" \
	"sbatch says why and what to do"
ok "slurmctld logs the refusal" ctld_has "job_submit/mdc: job submission by uid 0 refused: $msg"
out=$(timeout 30 sbatch --parsable -p debug,rt -t 1 --wrap true 2>&1)
like "$out" "^sbatch: error: partition 'rt' exists only at runtime" \
	"a partition list with one runtime-only partition is refused"

# job_modify: moving a pending job to rt is refused as well
jid=$(timeout 30 sbatch --parsable -H -p debug -t 1 --wrap true 2>"$TEST_DIR/err")
like "$jid" '^[0-9]+$' "a held job in debug"
nok "scontrol update Partition=rt is refused" scontrol update JobId="$jid" Partition=rt
ok "slurmctld logs the refused partition change" ctld_has "job_submit/mdc: partition change by uid 0 refused: $msg"
is "$(squeue -h -j "$jid" -o %P)" debug "the job stays in debug"
scancel "$jid"

# warn mode (mdc.conf is re-read when it changes, no restart)
printf 'JobSubmitMode = warn\n' >"$MDC_CONF"
jid=$(timeout 30 sbatch --parsable -p rt -t 1 --wrap true 2>"$TEST_DIR/err")
like "$jid" '^[0-9]+$' "warn mode: sbatch -p rt is accepted"
ok "warn mode: slurmctld logs the accepted job" \
	ctld_has "job_submit/mdc: job submission by uid 0 accepted (warn mode): $msg"
wait_until 60 job_done "$jid"
out=$(timeout 30 srun --mdc-managed-only -p rt -t 1 true 2>&1)
rc=$?
isnt "$rc" 0 "warn mode: srun --mdc-managed-only -p rt still fails"
like "$out" "^srun: error: $(printf '%s' "$msg" | sed 's/[][().*^$]/\\&/g')" \
	"srun says why"
ok "slurmctld logs it as --mdc-managed-only" \
	ctld_has "job_submit/mdc: job submission by uid 0 refused (--mdc-managed-only): $msg"
out=$(timeout 30 sbatch --mdc-managed-only -p rt -t 1 --wrap true 2>&1)
like "$out" "^sbatch: error: partition 'rt' exists only at runtime" \
	"warn mode: sbatch --mdc-managed-only -p rt is refused at submission"
out=$(timeout 30 salloc --mdc-managed-only -p rt -t 1 true 2>&1)
like "$out" "^salloc: error: partition 'rt' exists only at runtime" \
	"warn mode: salloc --mdc-managed-only -p rt is refused at submission"
like "$(sbatch --help 2>&1)" '^ +--mdc-managed-only +Fail the job unless its partition' \
	"sbatch --help lists --mdc-managed-only"

# the managed file gains rt (a regeneration): the next job sees it
printf 'JobSubmitMode = reject\n' >"$MDC_CONF"
echo "PartitionName=rt Nodes=compute" >>"$CONF_PATH"
jid=$(timeout 30 sbatch --parsable -p rt -t 1 --wrap true 2>"$TEST_DIR/err")
like "$jid" '^[0-9]+$' "after rt is written to slurm.conf, sbatch -p rt is accepted in reject mode"
ok "slurmctld re-read slurm.conf" ctld_has "job_submit/mdc: 2 managed partitions from '$CONF_PATH'"
wait_until 60 job_done "$jid"

# a Prolog= hook (what prolog_bash_scripts become) gets the job control
# environment: SPANK_MDC_CLUSTER / SPANK_MDC_ENDPOINT
cat >"$TEST_DIR/prolog.sh" <<PRO
#!/bin/sh
env | grep '^SPANK_MDC_' | sort >"$TEST_DIR/prolog.env.\$SLURM_JOB_ID"
PRO
chmod 0755 "$TEST_DIR/prolog.sh"
echo "Prolog=$TEST_DIR/prolog.sh" >>"$CONF_PATH"
ok "scontrol reconfigure takes Prolog=" scontrol reconfigure
jid=$(timeout 30 sbatch --parsable -p debug -t 1 --wrap true 2>"$TEST_DIR/err")
wait_until 60 job_done "$jid"
is "$(cat "$TEST_DIR/prolog.env.$jid" 2>&1)" "SPANK_MDC_CLUSTER=$CLUSTER
SPANK_MDC_ENDPOINT=$ENDPOINT" "the Prolog= script sees SPANK_MDC_CLUSTER and SPANK_MDC_ENDPOINT"
lab_down

# without job_submit/mdc, the SPANK plugin alone stops srun early
lab_start "$TEST_DIR/lab2" --plugstack "required $SPANK cluster=$CLUSTER"
scontrol create PartitionName=rt Nodes=ALL
out=$(timeout 60 srun --mdc-managed-only -p rt -t 1 echo ran 2>&1)
rc=$?
is "$rc/$(grep -c '^ran$' <<<"$out")" "1/0" "spank only: srun --mdc-managed-only -p rt fails before the task runs"
like "$out" "^srun: error: spank/mdc: --mdc-managed-only: partition 'rt' exists only at runtime \(it is not in '$TEST_DIR/lab2/etc/slurm.conf'\)" \
	"spank/mdc names the option and the partition"
