#!/usr/bin/env bash
# bench/sbatch.sh - what the plugins cost a submission, and what one
# enforcement cycle costs, in one run on two real Slurm labs (root).
#
# 1. sbatch throughput: K x ROUNDS held submissions (sbatch --hold, nothing
#    runs) to a lab with job_submit/mdc and spank_mdc.so and as many to a
#    lab without plugins, interleaved one by one, the order of each pair
#    alternating (A B, B A, ...) so that a drift in the machine's load falls
#    on both sides.  Both sides run the very same command line
#    ("${sb_args[@]}" below): the sbatch of the lab without spank_mdc
#    cannot take --mdc-* options, so the wait policy of every job in the
#    lab with the plugins comes from the site default in mdc.conf
#    (JobWaitDefault for the default partition, debug), and job_submit/mdc
#    resolves, checks and records it (AdminComment mdc:wait=...) as it does
#    for a policy given on the command line.  The ratio then measures the
#    plugins alone.  Checked after the run: the last job of the lab with
#    the plugins carries the record, else the bench fails.  The ratio
#    printed is the median job time without/with (goal >= 0.98), which a
#    burst of load on a few jobs does not move, with the ratio of the
#    total times and the median over batches of K.
#    On a shared, loaded machine the wall time of one sbatch (mostly
#    waiting: munge, slurmctld) varies far more than the 2% looked for, so
#    the line also gives the ratio of the CPU time (user+sys) of the sbatch
#    processes without/with, which load disturbs less, and slurmctld's CPU
#    per submission on each side (where job_submit/mdc runs; /proc ticks,
#    coarse).
#    A third lab, interleaved the same way, loads two plugins that do
#    nothing (bench/floor_spank.c registering four options as spank_mdc
#    does, bench/floor_job_submit.c accepting every job), built here: the
#    ratio floor/without is what Slurm charges any such pair, the ratio
#    with/floor what ours cost beyond it.
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
# the site default wait policy: every job of part 1 (default partition
# debug) gets it without a --mdc-* option on the command line
printf 'JobSubmitMode = reject\nJobWaitMax = 1d\nJobWaitDefault = debug=1h/fail\n' >"$MDC_CONF"
trap 'for l in with without floor; do "$top/scripts/slurm-lab" down "$dir/$l" >/dev/null 2>&1; done; rm -rf "$dir"' EXIT
conf_of() { (eval "$1"; echo "$SLURM_CONF"); }
# BENCH_RELEASE (bench/run --release): that release's labs, and the floor
# plugins built against its headers in its root; sbatch on every side is
# bench/run's wrapper (the same chroot start on each)
rel=(${BENCH_RELEASE:+--release "$BENCH_RELEASE"})
cc=(cc)
[ -z "${BENCH_RELEASE:-}" ] || cc=("$top/scripts/release-root" exec "$BENCH_RELEASE" --bind "$top" -- cc)
with=$(conf_of "$("$top/scripts/slurm-lab" up "$dir/with" "${rel[@]}" --plugindir "$js" --job-submit mdc \
	--plugstack "required $spank")")
without=$(conf_of "$("$top/scripts/slurm-lab" up "$dir/without" "${rel[@]}")")
mkdir -p "$dir/floorlib"
"${cc[@]}" -O2 -Wall -shared -fPIC -o "$dir/floorlib/job_submit_floor.so" "$top/bench/floor_job_submit.c"
"${cc[@]}" -O2 -Wall -shared -fPIC -o "$dir/floorlib/floor_spank.so" "$top/bench/floor_spank.c"
floor=$(conf_of "$("$top/scripts/slurm-lab" up "$dir/floor" "${rel[@]}" --plugindir "$dir/floorlib" \
	--job-submit floor --plugstack "required $dir/floorlib/floor_spank.so")")
echo "Slurm $(SLURM_CONF=$with scontrol --version 2>&1); floor plugins built by: ${cc[*]}"
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
# one SIDE CONF: one held submission (the same sbatch command line on both
# sides: "${sb_args[@]}"); appends "SIDE WALL CPU" to
# $out (seconds).  CPU: user+sys of the sbatch process, from `times` in
# the subshell that ran it (not in a pipeline: that is another subshell).
one() {
	local side=$1 conf=$2 t
	t=$(
		t0=$EPOCHREALTIME
		SLURM_CONF=$conf sbatch "${sb_args[@]}" >/dev/null
		t1=$EPOCHREALTIME
		times
		echo "$t0 $t1"
	)
	# "0m0.001s 0m0.002s" (self), "0m0.010s 0m0.012s" (children), "T0 T1"
	awk -v side="$side" 'NR == 2 { split($0, f, /[ms ]+/); cpu = f[1] * 60 + f[2] + f[3] * 60 + f[4] }
		NR == 3 { printf "%s %.6f %.6f\n", side, $2 - $1, cpu }' <<<"$t" >>"$out"
}
sb_args=(--hold -t 1 --wrap true)
out=$dir/jobs
# warm up both (page cache, slurmctld's first-job paths): not counted
for ((i = 0; i < 3; i++)); do
	one w "$with"
	one o "$without"
	one f "$floor"
done
: >"$out"
c0w=$(ctld_cpu "$with") c0o=$(ctld_cpu "$without")
# pairs in alternating order: a drift in the machine's load falls on both
# (the floor lab's submission goes between them, where it disturbs neither
# side more than the other)
for ((i = 0; i < k * rounds; i++)); do
	if ((i % 2 == 0)); then
		one w "$with"
		one f "$floor"
		one o "$without"
	else
		one o "$without"
		one f "$floor"
		one w "$with"
	fi
done
ctw=$(($(ctld_cpu "$with") - c0w)) cto=$(($(ctld_cpu "$without") - c0o))
# the lab with the plugins applied the site policy (else the ratio would
# not measure the policy path): its last job carries the record
last=$(SLURM_CONF=$with squeue -h -u root -o %i | sort -n | tail -1)
rec=$(SLURM_CONF=$with scontrol show job "$last" | tr ' ' '\n' | sed -n 's/^AdminComment=//p')
case $rec in
*mdc:wait=3600,on-timeout=fail*) echo "command line on both sides: sbatch ${sb_args[*]}; job $last (with): AdminComment=$rec" ;;
*) echo "bench: job $last of the lab with the plugins has no site wait policy (AdminComment='$rec')" >&2; exit 1 ;;
esac
SLURM_CONF=$with scancel -u root
SLURM_CONF=$without scancel -u root
SLURM_CONF=$floor scancel -u root
awk -v k="$k" -v hz="$(getconf CLK_TCK)" -v ctw="$ctw" -v cto="$cto" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)	# insertion sort: a few hundred values
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 == "w" { nw++; ww[nw] = $2; tw += $2; cw += $3; bw[int((nw - 1) / k)] += $2 }
$1 == "o" { no++; wo[no] = $2; to += $2; co += $3; bo[int((no - 1) / k)] += $2 }
$1 == "f" { nf++; wf[nf] = $2; tf += $2; cf += $3 }
END {
	for (r = 0; r * k < nw; r++) { nr++; rr[nr] = bo[r] / bw[r] }
	mw = median(ww, nw); mo = median(wo, no); mr = median(rr, nr); mf = median(wf, nf)
	printf "%d held submissions each, in pairs of alternating order\n", nw
	printf "with job_submit/mdc + spank_mdc (site wait policy): %.1f ms/job (median), %.1f jobs/s overall, sbatch CPU %.2f ms/job, slurmctld CPU %.2f ms/job\n",
		1000 * mw, nw / tw, 1000 * cw / nw, 1000 * ctw / hz / nw
	printf "without plugins: %.1f ms/job (median), %.1f jobs/s overall, sbatch CPU %.2f ms/job, slurmctld CPU %.2f ms/job\n",
		1000 * mo, no / to, 1000 * co / no, 1000 * cto / hz / no
	printf "ratio sbatch throughput with/without: %.3f (median job time without/with; overall %.3f, median of %d batches of %d %.3f; sbatch CPU without/with %.3f; goal >= 0.98)\n",
		mo / mw, to / tw, nr, k, mr, co / cw
	printf "floor (two plugins that do nothing): %.1f ms/job (median), %.1f jobs/s overall, sbatch CPU %.2f ms/job\n",
		1000 * mf, nf / tf, 1000 * cf / nf
	printf "ratio floor/without: %.3f (median job time; overall %.3f; sbatch CPU %.3f): what Slurm charges any spank + job_submit pair\n",
		mo / mf, to / tf, co / cf
	printf "ratio with/floor: %.3f (median job time; overall %.3f; sbatch CPU %.3f): what ours cost beyond that\n",
		mf / mw, tf / tw, cf / cw
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
