#!/usr/bin/env bash
# --remote on partition, plan and apply: the guard against removing a
# partition that still holds jobs asks the cluster through callSlurmRestApi
# (lib/mdc_slurmrest.c), so it holds with no local Slurm at all; finished
# jobs do not count.
# Real slurmctld and slurmrestd (slurm-lab --managed --rest).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

command -v slurmrestd >/dev/null || skip_all "slurmrestd is not installed (scripts/install-deps)"
lab_mdc_env --rest
plan 8
show_on_fail "$LAB_DIR/log/slurmrestd.out" "$TEST_DIR/err"
R() { env SLURM_CONF=/nonexistent PATH=/nonexistent "$MDCCTL" "$@"; }
patches() { jq -r 'select(.method == "PATCH") | .path' "$log" | grep -c .; }
rest_gets() { jq -r 'select(.path | endswith(":callSlurmRestApi")) | .body.path' "$log" | grep -c '/jobs$'; }

n=$(lab_syncs)
"$MDCCTL" --yes partition create extra --node-pools compute >/dev/null 2>"$TEST_DIR/err" ||
	fail "create partition extra: $(cat "$TEST_DIR/err")"
lab_wait_sync "$n" || diag "partition extra not applied in time"
# the lab's node has 2 CPUs: one job runs, the other waits
j1=$(sbatch --parsable -p extra -c 2 -J g1 --wrap 'sleep 300')
j2=$(sbatch --parsable -p extra -c 2 -J g2 --wrap 'sleep 300')
running() { [ "$(squeue -h -j "$j1" -o %T)" = RUNNING ]; }
wait_until 30 running || diag "job $j1 did not start"

p0=$(patches) g0=$(rest_gets)
R --remote --yes partition delete extra >/dev/null 2>"$TEST_DIR/err"
is "$?" 3 "--remote partition delete of a partition with jobs, no local Slurm: refused (exit 3)"
like "$(cat "$TEST_DIR/err")" "partition 'extra' still holds jobs $j1 \(RUNNING\), $j2 \(PENDING\)" \
	"the refusal names the jobs and their states, read through callSlurmRestApi"
is "$(patches) $(($(rest_gets) - g0))" "$p0 1" "nothing was sent; one GET jobs through callSlurmRestApi"

# plan --remote with a file that drops the partition: the same guard
grep -v '^PartitionName=extra' "$SLURM_CONF" >"$TEST_DIR/no-extra.conf"
g0=$(rest_gets)
"$MDCCTL" --remote plan "$TEST_DIR/no-extra.conf" >"$TEST_DIR/plan.out" 2>"$TEST_DIR/err"
is "$? $(grep -c "^refused: partition 'extra' still holds jobs $j1 (RUNNING), $j2 (PENDING)" "$TEST_DIR/plan.out")" \
	"3 1" "plan --remote refuses the file, naming the jobs"
is "$(($(rest_gets) - g0))" 1 "its guard asked the cluster through callSlurmRestApi"

# finished jobs do not hold the partition
scancel "$j1" "$j2"
gone() { [ -z "$(squeue -h -j "$j1,$j2" -o %i 2>/dev/null)" ]; }
wait_until 30 gone || diag "jobs $j1 $j2 still queued"
n=$(lab_syncs)
R --remote --yes partition delete extra >/dev/null 2>"$TEST_DIR/err"
is "$?" 0 "once the jobs are cancelled, --remote partition delete goes ahead"
lab_wait_sync "$n" || diag "the delete was not applied in time"
is "$(sinfo -h -o %R | sort | tr '\n' ' ')" "debug " "slurmctld has only partition debug left"

R --remote describe >/dev/null 2>&1
is "$?" 2 "describe still refuses --remote"
