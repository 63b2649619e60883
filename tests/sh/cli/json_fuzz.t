#!/usr/bin/env bash
# json_fuzz.t - build the libFuzzer target of the JSON parse that reuses
# kept list elements (fuzz/json_fuzz.c) and run it for a bounded number of
# inputs from tests/json/fuzz-seeds: it must agree with the plain parse
# (verdict, message, value, text) with no crash, leak or undefined
# behaviour.  A fixed seed and number of runs, as in sc_fuzz.t; explore
# with JSON_FUZZ_SEED / JSON_FUZZ_RUNS by hand and add findings as seeds.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_target json_fuzz json/fuzz-seeds "${JSON_FUZZ_SEED:-1}" "${JSON_FUZZ_RUNS:-20000}" \
	"every seed parses alike both ways" "the reusing parse agrees with the plain one"
