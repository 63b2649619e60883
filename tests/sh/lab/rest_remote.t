#!/usr/bin/env bash
# mdcctl --remote jobs: the cluster's queue read through callSlurmRestApi
# (lib/mdc_slurmrest.c), with no local Slurm (no SLURM_CONF, no Slurm on
# PATH), against a real slurmctld and slurmrestd (slurm-lab --managed
# --rest).  It sends only the pings that choose the data parser and the
# jobs read; the token stays out of its messages; a reader's token, a
# stopped slurmrestd and --remote on other commands are refusals.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v slurmrestd >/dev/null || skip_all "slurmrestd is not installed (scripts/install-deps)"
lab_mdc_env --rest
plan 14
show_on_fail "$LAB_DIR/log/slurmrestd.out" "$TEST_DIR/err"

# two jobs of the lab's 2-CPU node: one runs, one waits for the CPUs
r1=$(sbatch --parsable -p debug -c 1 -J run1 --wrap 'sleep 300')
r2=$(sbatch --parsable -p debug -c 2 -J wait2 --wrap 'sleep 300')
running() { [ "$(squeue -h -j "$r1" -o %T)" = RUNNING ]; }
wait_until 30 running || diag "job $r1 did not start"
at_exit "scancel $r1 $r2 2>/dev/null"

# no Slurm here: no slurm.conf, nothing of Slurm's on PATH
R() { env SLURM_CONF=/nonexistent PATH=/nonexistent "$MDCCTL" "$@"; }
n0=$(grep -c . "$log")
out=$(R --remote jobs 2>"$TEST_DIR/err"); rc=$?
is "$rc" 0 "--remote jobs runs without a local Slurm"
is "$(head -1 <<<"$out" | tr -s ' ')" "JOBID PARTITION STATE USER NODES NAME" "its heading"
want=$(squeue -h -o '%i %P %T %u %N %j' | sed 's/  / - /' | sort)
is "$(tail -n +2 <<<"$out" | tr -s ' ' | sed 's/ $//' | sort)" "$want" "the rows are slurmctld's queue (squeue)"
like "$out" "^$r2 +debug +PENDING +root +- +wait2\$" "the waiting job, with no nodes"

# exactly what was sent: the pings down to the lab's parser, then jobs
sent=$(tail -n +$((n0 + 1)) "$log" | jq -r 'select(.path | endswith(":callSlurmRestApi")) |
	"\(.method) \(.body.method) \(.body.path)"' | tr '\n' ' ')
is "$sent" "POST HTTP_METHOD_GET /slurm/v0.0.43/ping POST HTTP_METHOD_GET /slurm/v0.0.42/ping POST HTTP_METHOD_GET /slurm/v0.0.41/ping POST HTTP_METHOD_GET /slurm/v0.0.40/ping POST HTTP_METHOD_GET /slurm/v0.0.39/ping POST HTTP_METHOD_GET /slurm/v0.0.38/ping POST HTTP_METHOD_GET /slurm/v0.0.38/jobs " \
	"it sends the pings, newest parser first, until one answers, then GET jobs; nothing else"
is "$(tail -n +$((n0 + 1)) "$log" | jq -r '.path' | grep -vc ':callSlurmRestApi$')" 0 \
	"no other request reaches the API"

js=$(R jobs list --remote --format json 2>"$TEST_DIR/err")
is "$(jq -r .data_parser <<<"$js")" v0.0.38 "json: the data parser chosen from the cluster's answer"
is "$(jq -c "[.jobs[] | select(.job_id == \"$r1\") | .name, .state, .nodes]" <<<"$js")" \
	"[\"run1\",\"RUNNING\",\"$(hostname -s)\"]" "json: the running job and its node"

# the token: in the Authorization header only, never in a message
tok=$(<"$MDC_TOKEN_FILE")
R -v --remote jobs >/dev/null 2>"$TEST_DIR/err"
nok "-v messages do not hold the token" grep -qF "$tok" "$TEST_DIR/err"

# --remote is refused where it means nothing
R --remote describe >/dev/null 2>"$TEST_DIR/err"
is "$? $(grep -c 'no --remote' "$TEST_DIR/err")" "2 1" "--remote on describe: usage error"
R jobs enforce --remote --once >/dev/null 2>"$TEST_DIR/err"
is "$? $(grep -c 'no --remote' "$TEST_DIR/err")" "2 1" "jobs enforce --remote: usage error"

# a reader's token lacks modelDevelopmentClusters.run (a second emulator on
# the same slurmrestd, with a reader token)
emu_up --token admin-t --read-only-token reader-t --slurmrestd "$MDC_SLURMRESTD"
EMU_AUTH="Authorization: Bearer admin-t"
emu_create_cluster c1 >/dev/null || fail "create c1"
E() { env -u MDC_TOKEN_FILE MDC_ENDPOINT="$EMU_URL" MDC_CLUSTER="$EMU_PARENT/modelDevelopmentClusters/c1" \
	MDC_ACCESS_TOKEN="$1" SLURM_CONF=/nonexistent PATH=/nonexistent "$MDCCTL" --remote jobs; }
E reader-t >/dev/null 2>"$TEST_DIR/err"
like "$? $(cat "$TEST_DIR/err")" "^[1-9][0-9]* mdcctl: error: .*PERMISSION_DENIED.*modelDevelopmentClusters\.run" \
	"a reader's token: refused with the permission named"
is "$(E admin-t | tail -n +2 | awk '{print $1}' | sort | tr '\n' ' ')" "$(printf '%s\n' "$r1" "$r2" | sort | tr '\n' ' ')" \
	"the admin token reads the same queue"

# slurmrestd down: the call fails, saying so
lab_down
E admin-t >/dev/null 2>"$TEST_DIR/err"
like "$? $(cat "$TEST_DIR/err")" "^[1-9][0-9]* mdcctl: error: .*UNAVAILABLE.*slurmrestd" \
	"slurmrestd stopped: an error naming it, not an empty list"
