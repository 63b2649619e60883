#!/usr/bin/env bash
# bench/sbatch.sh - what the plugins cost a submission, and what one
# enforcement cycle costs, in one run on two real Slurm labs (root).
#
# 1. sbatch throughput: ROUNDS rounds, each one batch of K held submissions
#    (sbatch -H, nothing runs) to a lab with job_submit/mdc and spank_mdc.so
#    (with a wait policy on every job, so the whole path runs) and one to a
#    lab without plugins, the order alternating between rounds (A B, B A,
#    ...) so that a drift in the machine's load falls on both sides.  The
#    ratio with/without of each round's rate; printed: the median over the
#    rounds (goal >= 0.98) and their range.  On a shared, loaded machine
#    the wall time of one sbatch (mostly waiting: munge, slurmctld) varies
#    far more than the 2% looked for, so the line also gives the ratio of
#    the CPU time (user+sys) of the sbatch processes without/with, which
#    load disturbs less, and slurmctld's CPU per submission on each side
#    (where job_submit/mdc runs; /proc ticks, coarse).
# 2. the CPU time (user+sys of the mdcctl process, not slurmctld's) of one
#    `mdcctl jobs enforce --once` over N pending jobs that all carry a
#    policy (pending in a DOWN partition, wait not expired: the cycle
#    loads, parses and judges every job; no job is acted on).
#
#   bench/sbatch.sh [BUILD_DIR] [K] [ROUNDS] [N]   (default: build, 30, 10, 2000)
set -euo pipefail
export LC_ALL=C	# times and printf with a decimal point
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
k=${2:-30}
rounds=${3:-10}
n=${4:-2000}
js=$build/plugins/job_submit/.libs
spank=$build/plugins/spank/.libs/spank_mdc.so
for f in "$js/job_submit_mdc.so" "$spank" "$build/mdcctl"; do
	[ -e "$f" ] || { echo "bench: build first ($f missing)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench: needs root (real Slurm daemons)" >&2; exit 1; }

dir=$(mktemp -d)
export MDC_CONF=$dir/mdc.conf
printf 'JobSubmitMode = reject\nJobWaitMax = 1d\n' >"$MDC_CONF"
trap '"$top/scripts/slurm-lab" down "$dir/with" >/dev/null 2>&1; "$top/scripts/slurm-lab" down "$dir/without" >/dev/null 2>&1; rm -rf "$dir"' EXIT
conf_of() { (eval "$1"; echo "$SLURM_CONF"); }
with=$(conf_of "$("$top/scripts/slurm-lab" up "$dir/with" --plugindir "$js" --job-submit mdc \
	--plugstack "required $spank")")
without=$(conf_of "$("$top/scripts/slurm-lab" up "$dir/without")")
# a DOWN partition: jobs stay pending for resources
echo "PartitionName=reserved Nodes=compute MaxTime=INFINITE State=DOWN" >>"$with"
SLURM_CONF=$with scontrol reconfigure

# ctld_cpu CONF: slurmctld's user+sys CPU so far, in clock ticks
ctld_cpu() {
	local pid stat
	pid=$(cat "$(dirname "$1")/../run/slurmctld.pid")
	stat=$(cat "/proc/$pid/stat")
	stat=${stat##*) }	# fields from the 3rd on: utime is the 12th here
	awk '{ print $12 + $13 }' <<<"$stat"
}
# batch CONF ARGS...: K held submissions; prints "WALL SBATCH_CPU CTLD_TICKS"
# (seconds, seconds, ticks).  The sbatch processes' CPU is what `times`
# reports for the children of the subshell that ran them.
batch() {
	local conf=$1 t0 t1 c0 c1 cpu
	shift
	c0=$(ctld_cpu "$conf")
	t0=$EPOCHREALTIME
	cpu=$(
		for ((i = 0; i < k; i++)); do
			SLURM_CONF=$conf sbatch -H -t 1 "$@" --wrap true >/dev/null
		done
		times	# (not in a pipeline: that would be another subshell)
	)
	cpu=${cpu#*$'\n'}
	t1=$EPOCHREALTIME
	c1=$(ctld_cpu "$conf")
	# times: "0m1.234s 0m0.567s" (user sys of the children)
	awk -v a="$t0" -v b="$t1" -v c="$cpu" -v c0="$c0" -v c1="$c1" 'BEGIN {
		n = split(c, f, /[ms]+/)
		printf "%.6f %.6f %d\n", b - a, f[1] * 60 + f[2] + f[3] * 60 + f[4], c1 - c0
	}'
}
out=$dir/rounds
: >"$out"
# warm up both (page cache, slurmctld's first-job paths): not counted
k_all=$k k=3
batch "$with" --mdc-wait-time=1h --mdc-on-timeout=fail >/dev/null
batch "$without" >/dev/null
k=$k_all
for ((r = 0; r < rounds; r++)); do
	if ((r % 2 == 0)); then
		w=$(batch "$with" --mdc-wait-time=1h --mdc-on-timeout=fail)
		o=$(batch "$without")
	else
		o=$(batch "$without")
		w=$(batch "$with" --mdc-wait-time=1h --mdc-on-timeout=fail)
	fi
	echo "$w $o" >>"$out"
done
SLURM_CONF=$with scancel -u root
SLURM_CONF=$without scancel -u root
hz=$(getconf CLK_TCK)
# each line: with (wall cpu ticks), without (wall cpu ticks)
awk -v k="$k" -v rounds="$rounds" -v hz="$hz" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)	# insertion sort: n is small
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	n++
	ratio[n] = $4 / $1; cpu[n] = $5 / $2
	rw[n] = k / $1; ro[n] = k / $4
	lo = n == 1 || ratio[n] < lo ? ratio[n] : lo
	hi = n == 1 || ratio[n] > hi ? ratio[n] : hi
	cw += $2; co += $5; tw += $3; to += $6
}
END {
	jobs = k * rounds
	printf "%d held submissions each, %d rounds of %d, order alternating\n", jobs, rounds, k
	printf "with job_submit/mdc + spank_mdc (wait policy): %.1f jobs/s (median round), sbatch CPU %.2f ms/job, slurmctld CPU %.2f ms/job\n",
		median(rw, n), 1000 * cw / jobs, 1000 * tw / hz / jobs
	printf "without plugins: %.1f jobs/s (median round), sbatch CPU %.2f ms/job, slurmctld CPU %.2f ms/job\n",
		median(ro, n), 1000 * co / jobs, 1000 * to / hz / jobs
	printf "ratio sbatch throughput with/without: %.3f (median of %d interleaved rounds, range %.3f..%.3f; sbatch CPU without/with %.3f, median %.3f; goal >= 0.98)\n",
		median(ratio, n), n, lo, hi, co / cw, median(cpu, n)
}' "$out"

# enforcement cycle over N pending jobs with a policy
for ((i = 0; i < n; i++)); do
	SLURM_CONF=$with sbatch -p reserved -t 1 --mdc-wait-time=1d --mdc-on-timeout=fail \
		--wrap true >/dev/null
done
pending=$(SLURM_CONF=$with squeue -h -t PD | wc -l)
cpu=$( { SLURM_CONF=$with TIMEFORMAT='%U %S %R' bash -c 'time "$0" jobs enforce --once' "$build/mdcctl" >/dev/null; } 2>&1 | tail -1)
awk -v c="$cpu" -v p="$pending" 'BEGIN {
	split(c, t, " ")
	printf "one enforcement cycle over %d pending jobs with a policy: %.3f s CPU (user %.3f, sys %.3f), %.3f s wall\n",
		p, t[1] + t[2], t[1], t[2], t[3]
	printf "(mdcctl process only; includes loading libslurm and its config; slurmctld packing the jobs is not counted)\n"
}'
SLURM_CONF=$with scancel -u root
