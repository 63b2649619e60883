#!/usr/bin/env bash
# job_submit/mdc must not block an admin's move of a job.
# A managed lab with job_submit/mdc and no mdc.conf: slurmctld 22.05 reads
# errno after a partition change (no accounting), and the plugin's stat()
# of the absent mdc.conf left ENOENT there, so `scontrol update
# Partition=` and `mdcctl jobs enforce` failed with "No such file or
# directory".
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

JS_DIR=$top_builddir/plugins/job_submit/.libs
SPANK=$top_builddir/plugins/spank/.libs/spank_mdc.so
MDCCTL=$top_builddir/mdcctl
[ -f "$JS_DIR/job_submit_mdc.so" ] && [ -f "$SPANK" ] || skip_all "the plugins are not built"
lab_need

# the absent mdc.conf is the trigger: slurmctld inherits MDC_CONF
export MDC_CONF=$TEST_DIR/absent-mdc.conf
unset MDC_JOB_SUBMIT_MODE
lab_up --managed --plugindir "$JS_DIR" --job-submit mdc --plugstack "required $SPANK"
plan 9
CTLD_LOG=$LAB_DIR/log/slurmctld.log
show_on_fail "$TEST_DIR/err" "$TEST_DIR/enforce.log"

# the tools get an empty mdc.conf of their own (mdcctl refuses a named
# file that is absent)
: >"$TEST_DIR/tools.conf"
M() { MDC_CONF=$TEST_DIR/tools.conf "$MDCCTL" "$@"; }
field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }
ok "mdcctl partition create reserved State=DOWN" \
	M --yes partition create reserved --node-pools compute State=DOWN
ok "mdcctl partition create ondemand" M --yes partition create ondemand --node-pools compute
parts_live() { scontrol show partition reserved >/dev/null 2>&1 && scontrol show partition ondemand >/dev/null 2>&1; }
ok "both partitions are live" wait_until 60 parts_live

# a plain admin move
j1=$(timeout 30 sbatch --parsable -p reserved -t 1 --wrap true 2>"$TEST_DIR/err")
like "$j1" '^[0-9]+$' "a job in reserved"
out=$(scontrol update JobId="$j1" Partition=ondemand 2>&1)
is "$?/$out" "0/" "scontrol update Partition=ondemand by root succeeds"
is "$(field "$j1" Partition)" ondemand "the job is in ondemand"
scancel "$j1"

# the enforcer's fall-back
j2=$(timeout 30 sbatch --parsable -p reserved -t 1 --mdc-wait-time=2s \
	--mdc-on-timeout=fall-back-to-on-demand --mdc-fallback-partition=ondemand --wrap true 2>"$TEST_DIR/err")
like "$j2" '^[0-9]+$' "a job in reserved with a fall-back policy"
expired() { [ $(($(date +%s) - $(date -d "$(field "$j2" SubmitTime)" +%s))) -gt 3 ]; }
wait_until 30 expired
M jobs enforce --once >"$TEST_DIR/enforce.log" 2>&1
is "$?" 0 "mdcctl jobs enforce --once succeeds"
is "$(field "$j2" Partition)/$(grep -c 'No such file' "$TEST_DIR/enforce.log")" "ondemand/0" \
	"the job fell back to ondemand, with no errno in the output"
