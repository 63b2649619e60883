#!/usr/bin/env bash
# bench/sbatch.sh - what the plugins cost a submission, and what one
# enforcement cycle costs, in one run on two real Slurm labs (root).
#
# 1. sbatch throughput: ROUNDS interleaved batches of K held submissions
#    (sbatch -H, nothing runs) to a lab with job_submit/mdc and spank_mdc.so
#    (with a wait policy on every job, so the whole path runs) and to a lab
#    without plugins.  Prints both rates and the ratio with/without
#    (goal >= 0.98).
# 2. the CPU time (user+sys of the mdcctl process, not slurmctld's) of one
#    `mdcctl jobs enforce --once` over N pending jobs that all carry a
#    policy (pending in a DOWN partition, wait not expired: the cycle
#    loads, parses and judges every job; no job is acted on).
#
#   bench/sbatch.sh [BUILD_DIR] [K] [ROUNDS] [N]   (default: build, 50, 6, 2000)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
k=${2:-50}
rounds=${3:-6}
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

now() { date +%s.%N; }
batch() {	# batch CONF ARGS...: K held submissions, prints seconds
	local conf=$1 t0 i
	shift
	t0=$(now)
	for ((i = 0; i < k; i++)); do
		SLURM_CONF=$conf sbatch -H -t 1 "$@" --wrap true >/dev/null
	done
	awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.6f\n", b - a }'
}
tw=0 to=0
for ((r = 0; r < rounds; r++)); do
	tw=$(awk -v s="$tw" -v d="$(batch "$with" --mdc-wait-time=1h --mdc-on-timeout=fail)" 'BEGIN { print s + d }')
	to=$(awk -v s="$to" -v d="$(batch "$without")" 'BEGIN { print s + d }')
done
SLURM_CONF=$with scancel -u root
SLURM_CONF=$without scancel -u root
awk -v w="$tw" -v o="$to" -v n="$((k * rounds))" 'BEGIN {
	printf "%d held submissions each, interleaved in batches\n", n
	printf "with job_submit/mdc + spank_mdc (wait policy): %.1f jobs/s\n", n / w
	printf "without plugins: %.1f jobs/s\n", n / o
	printf "ratio with/without: %.3f (goal >= 0.98)\n", o / w
}'

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
