# fuzz.sh - one libFuzzer target as four TAP tests, for sc_fuzz.t and
# json_fuzz.t (source after tap.sh):
#
#   fuzz_target TARGET SEEDS SEED RUNS SEEDS_SAY RUN_SAY
#
# builds fuzz/TARGET.c (fuzz/build.sh; skips all when clang or its
# libFuzzer runtime is missing), runs the seeds in tests/SEEDS alone, then
# RUNS inputs from seed SEED: no crash, leak, undefined behaviour or broken
# property.  The same inputs every time, so a finding is a bug of the
# commit, never of the day; SEEDS_SAY and RUN_SAY name what passing means.
fuzz_target() {
	local target=$1 seeds=$top_srcdir/tests/$2 seed=$3 runs=$4 out rc
	out=$(sh "$top_srcdir/fuzz/build.sh" "$top_srcdir" "$top_builddir" "$TEST_DIR/$target" \
		"$target" 2>&1); rc=$?
	[ "$rc" = 77 ] && skip_all "$out"
	plan 4
	is "$rc" 0 "the libFuzzer target builds"
	[ "$rc" = 0 ] || { diag "$out"; exit 1; }

	out=$("$TEST_DIR/$target" -runs=0 "$seeds"/* 2>&1); rc=$?
	is "$rc" 0 "$5"
	[ "$rc" = 0 ] || diag "$(printf '%s\n' "$out" | tail -30)"

	mkdir -p "$TEST_DIR/corpus"
	out=$(cd "$TEST_DIR" && timeout 600 "./$target" -seed="$seed" -runs="$runs" \
		-rss_limit_mb=1024 -timeout=20 -artifact_prefix="$TEST_DIR/" \
		corpus "$seeds" 2>&1); rc=$?
	is "$rc" 0 "$runs fuzzed inputs (seed $seed): $6"
	[ "$rc" = 0 ] && ls "$TEST_DIR"/crash-* >/dev/null 2>&1 && rc=1
	like "$out" "Done $runs runs" "the fuzzer ran every input"
	[ "$rc" = 0 ] || diag "$(printf '%s\n' "$out" | tail -40)"
}
