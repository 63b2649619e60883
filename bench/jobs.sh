#!/usr/bin/env bash
# bench/jobs.sh - what one enforcement cycle of the job wait policy costs
# over a large queue, in one run on a real Slurm lab (root).
#
# N held jobs (priority 0, as sbatch -H; each with a wait policy recorded
# by job_submit/mdc from the site default of its partition)
# wait in a lab whose MaxJobCount is raised above N.  Each job is its own
# record (a job array would be one record while pending, which is not what
# is measured here).  Then, one after the other on the same queue:
#   - `mdcctl jobs enforce --once`: one slurm_load_jobs of every job, every
#     record parsed and judged (held: none is acted on);
#   - `squeue` of the same jobs: the same load through Slurm's own client,
#     the floor any tool reading the queue pays.
# Prints the CPU seconds (user+sys of the client process; slurmctld's
# packing is not counted) of both, the cycle's against the 1 s goal, and
# the cycle's over squeue's.
#
#   bench/jobs.sh [BUILD_DIR] [N]   (default: build, 10000)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
n=${2:-10000}
js=$build/plugins/job_submit/.libs
spank=$build/plugins/spank/.libs/spank_mdc.so
for f in "$js/job_submit_mdc.so" "$spank" "$build/mdcctl"; do
	[ -e "$f" ] || { echo "bench: build first ($f missing)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench: needs root (real Slurm daemons)" >&2; exit 1; }

dir=$(mktemp -d)
export MDC_CONF=$dir/mdc.conf
printf 'JobSubmitMode = reject\nJobWaitMax = 1d\nJobWaitDefault = reserved=1d/fail\n' >"$MDC_CONF"
trap '"$top/scripts/slurm-lab" down "$dir/lab" >/dev/null 2>&1; rm -rf "$dir"' EXIT
eval "$("$top/scripts/slurm-lab" up "$dir/lab" ${BENCH_RELEASE:+--release "$BENCH_RELEASE"} --plugindir "$js" --job-submit mdc \
	--plugstack "required $spank")"
# room for N jobs (MaxJobCount needs a restart); a DOWN partition to wait in
{
	echo "MaxJobCount=$((n + 1000))"
	echo "PartitionName=reserved Nodes=compute MaxTime=INFINITE State=DOWN"
} >>"$SLURM_CONF"
"$top/scripts/slurm-lab" restart "$dir/lab" >/dev/null 2>&1

# one process, one RPC per job (bench/jobs_submit.c): sbatch would take
# a quarter of an hour here
# (bench/run --release: built against that release's libslurm in its root)
${BENCH_RELEASE:+"$top/scripts/release-root" exec "$BENCH_RELEASE" --bind "$top" --} cc -O2 -Wall -o "$dir/jobs_submit" "$top/bench/jobs_submit.c" -lslurm
t0=$(date +%s.%N)
"$dir/jobs_submit" "$n" reserved >/dev/null
t1=$(date +%s.%N)
# the listing is the same cycle without actions: one row per job with a policy
have=$("$build/mdcctl" jobs | grep -c ' nothing while not pending for resources$' || true)
[ "$have" -ge "$n" ] || { echo "bench: only $have of $n jobs are queued, held, with a policy" >&2; exit 1; }

cpu() {	# cpu CMD...: "user sys wall" of one run of CMD
	local TIMEFORMAT='%U %S %R'
	{ time "$@" >/dev/null 2>&1; } 2>&1 | tail -1
}
"$build/mdcctl" jobs enforce --once >/dev/null	# warm the page cache
cyc=$(cpu "$build/mdcctl" jobs enforce --once)
sq=$(cpu squeue -a -h -o '%A %P %T %r')
awk -v n="$have" -v c="$cyc" -v s="$sq" -v subt="$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" 'BEGIN {
	split(c, a, " "); split(s, b, " ")
	cc = a[1] + a[2]; sc = b[1] + b[2]
	printf "%d held jobs with a policy queued in %.0f s (%.0f jobs/s, libslurm)\n", n, subt, n / subt
	printf "one enforcement cycle (mdcctl jobs enforce --once): %.3f s CPU (user %.3f, sys %.3f), %.3f s wall\n", cc, a[1], a[2], a[3]
	printf "squeue of the same jobs: %.3f s CPU (user %.3f, sys %.3f), %.3f s wall\n", sc, b[1], b[2], b[3]
	printf "ratio enforcement cycle CPU / 1 s goal (%d jobs): %.3f (goal < 1)\n", n, cc
	printf "ratio enforcement cycle CPU / squeue CPU: %.2f\n", (sc > 0 ? cc / sc : 0)
}'
