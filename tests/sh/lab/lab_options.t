#!/usr/bin/env bash
# up's plugin options reach a real Slurm: --job-submit loads a job_submit
# plugin (Slurm's own require_timelimit refuses jobs without -t),
# --plugstack a SPANK plugin (Slurm's spank_pbs sets PBS_* in each task),
# --plugindir extends PluginDir.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_need
pdir=$(dirname "$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | grep -m1 '/auth_munge\.so$')")
[ -r "$pdir/job_submit_require_timelimit.so" ] && [ -r "$pdir/spank_pbs.so" ] ||
	skip_all "Slurm's require_timelimit and spank_pbs plugins are not installed"
mkdir -p "$TEST_DIR/plugins"
lab_up --plugindir "$TEST_DIR/plugins" --job-submit require_timelimit \
	--plugstack "required $pdir/spank_pbs.so"
plan 9
show_on_fail "$TEST_DIR/srun.err"
host=$(hostname -s)

base=$(cat "$LAB_DIR/etc/slurm.base.conf")
like "$base" "^JobSubmitPlugins=require_timelimit\$" "--job-submit is written to the base"
like "$base" "^PluginDir=$pdir:$TEST_DIR/plugins\$" "--plugindir is appended to PluginDir"
is "$(cat "$LAB_DIR/etc/plugstack.conf")" "required $pdir/spank_pbs.so" "--plugstack is the lab's plugstack.conf"
cfg=$(scontrol show config)
like "$cfg" "^JobSubmitPlugins += require_timelimit\$" "slurmctld runs with the job_submit plugin"
like "$cfg" "^PluginDir += $pdir:$TEST_DIR/plugins\$" "slurmctld searches both plugin dirs"

err=$(timeout 30 sbatch --wrap true 2>&1)
rc=$?
isnt "$rc" 0 "the job_submit plugin refuses a job without a time limit"
like "$err" '[Tt]ime limit' "and says why ($err)"
like "$(timeout 30 sbatch --parsable -t 1 --wrap true 2>&1)" '^[0-9]+$' "a job with -t is accepted"

out=$(timeout 60 srun -t 1 -J spanktest printenv PBS_JOBNAME 2>>"$TEST_DIR/srun.err")
is "$out" spanktest "the SPANK plugin set PBS_JOBNAME in the task"
