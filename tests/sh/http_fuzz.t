#!/usr/bin/env bash
# http_fuzz.t - build the libFuzzer target of the parser of the answers
# our own http:// transport reads (fuzz/http_fuzz.c) and run it for a
# bounded number of inputs from tests/http/fuzz-seeds: whole, open and cut
# answers must agree (see the target) with no crash, overread, leak or
# undefined behaviour.  A fixed seed and number of runs, as in sc_fuzz.t;
# explore with HTTP_FUZZ_SEED / HTTP_FUZZ_RUNS by hand and add findings as
# seeds.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_target http_fuzz http/fuzz-seeds "${HTTP_FUZZ_SEED:-1}" "${HTTP_FUZZ_RUNS:-20000}" \
	"every seed keeps the properties" "whole, open and cut answers agree"
