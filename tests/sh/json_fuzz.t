#!/usr/bin/env bash
# json_fuzz.t - build the libFuzzer target of the JSON parse that reuses
# kept list elements (fuzz/json_fuzz.c) and run it for a bounded number of
# inputs from tests/json/fuzz-seeds: it must agree with the plain parse
# (verdict, message, value, text) with no crash, leak or undefined
# behaviour.  A fixed seed and number of runs, as in sc_fuzz.t; explore
# with JSON_FUZZ_SEED / JSON_FUZZ_RUNS by hand and add findings as seeds.
. "$top_srcdir/tests/lib/tap.sh"

seed=${JSON_FUZZ_SEED:-1}
runs=${JSON_FUZZ_RUNS:-20000}
out=$(sh "$top_srcdir/fuzz/build.sh" "$top_srcdir" "$top_builddir" "$TEST_DIR/json_fuzz" json_fuzz 2>&1); rc=$?
[ "$rc" = 77 ] && skip_all "$out"
plan 4
is "$rc" 0 "the libFuzzer target builds"
[ "$rc" = 0 ] || { diag "$out"; exit 1; }

out=$("$TEST_DIR/json_fuzz" -runs=0 "$top_srcdir"/tests/json/fuzz-seeds/* 2>&1); rc=$?
is "$rc" 0 "every seed parses alike both ways"
[ "$rc" = 0 ] || diag "$(printf '%s\n' "$out" | tail -30)"

mkdir -p "$TEST_DIR/corpus"
out=$(cd "$TEST_DIR" && timeout 600 ./json_fuzz -seed="$seed" -runs="$runs" \
	-rss_limit_mb=1024 -timeout=20 -artifact_prefix="$TEST_DIR/" \
	corpus "$top_srcdir/tests/json/fuzz-seeds" 2>&1); rc=$?
is "$rc" 0 "$runs fuzzed inputs (seed $seed): the reusing parse agrees with the plain one"
[ "$rc" = 0 ] && ls "$TEST_DIR"/crash-* >/dev/null 2>&1 && rc=1
like "$out" "Done $runs runs" "the fuzzer ran every input"
[ "$rc" = 0 ] || diag "$(printf '%s\n' "$out" | tail -40)"
