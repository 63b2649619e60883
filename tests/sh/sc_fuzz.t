#!/usr/bin/env bash
# sc_fuzz.t - build the libFuzzer parser target (fuzz/build.sh, clang) and
# run it for a short bounded time from the seed corpus tests/sc/fuzz-seeds:
# no crash, leak, undefined behaviour or broken property (fuzz/sc_fuzz.c).
# SC_FUZZ_SECONDS sets the run time (default 10).  (owner: slurm.conf engine)
. "$top_srcdir/tests/lib/tap.sh"

seconds=${SC_FUZZ_SECONDS:-10}
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
out=$(cd "$TEST_DIR" && timeout $((seconds * 3 + 60)) ./sc_fuzz -max_total_time="$seconds" \
	-rss_limit_mb=1024 -timeout=20 -artifact_prefix="$TEST_DIR/" \
	corpus "$top_srcdir/tests/sc/fuzz-seeds" 2>&1); rc=$?
is "$rc" 0 "a ${seconds}s fuzz run finds no crash"
[ "$rc" = 0 ] && ls "$TEST_DIR"/crash-* >/dev/null 2>&1 && rc=1
like "$out" 'Done [0-9]+ runs' "the fuzzer ran to its time limit"
[ "$rc" = 0 ] || diag "$(printf '%s\n' "$out" | tail -40)"
