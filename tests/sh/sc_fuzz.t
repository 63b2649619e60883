#!/usr/bin/env bash
# sc_fuzz.t - build the libFuzzer parser target (fuzz/build.sh, clang) and
# run it for a bounded number of inputs from the seed corpus
# tests/sc/fuzz-seeds: no crash, leak, undefined behaviour or broken
# property (fuzz/sc_fuzz.c).  The run is the same every time (a fixed
# seed and number of runs), so a finding is a bug of the commit, never of
# the day: explore with other seeds by hand (SC_FUZZ_SEED, SC_FUZZ_RUNS)
# and add what they find to the seeds.  (owner: slurm.conf engine)
. "$top_srcdir/tests/lib/tap.sh"

seed=${SC_FUZZ_SEED:-1}
runs=${SC_FUZZ_RUNS:-10000}
out=$(sh "$top_srcdir/fuzz/build.sh" "$top_srcdir" "$top_builddir" "$TEST_DIR/sc_fuzz" 2>&1); rc=$?
[ "$rc" = 77 ] && skip_all "$out"
plan 4
is "$rc" 0 "the libFuzzer target builds"
[ "$rc" = 0 ] || { diag "$out"; exit 1; }

# the seeds alone, including past regressions, run clean
out=$("$TEST_DIR/sc_fuzz" -runs=0 "$top_srcdir"/tests/sc/fuzz-seeds/* 2>&1); rc=$?
is "$rc" 0 "every seed runs clean"
[ "$rc" = 0 ] || diag "$(printf '%s\n' "$out" | tail -30)"

mkdir -p "$TEST_DIR/corpus"
out=$(cd "$TEST_DIR" && timeout 600 ./sc_fuzz -seed="$seed" -runs="$runs" \
	-rss_limit_mb=1024 -timeout=20 -artifact_prefix="$TEST_DIR/" \
	corpus "$top_srcdir/tests/sc/fuzz-seeds" 2>&1); rc=$?
is "$rc" 0 "$runs fuzzed inputs (seed $seed) find no crash"
[ "$rc" = 0 ] && ls "$TEST_DIR"/crash-* >/dev/null 2>&1 && rc=1
like "$out" "Done $runs runs" "the fuzzer ran every input"
[ "$rc" = 0 ] || diag "$(printf '%s\n' "$out" | tail -40)"
