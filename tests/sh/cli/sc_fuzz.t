#!/usr/bin/env bash
# sc_fuzz.t - build the libFuzzer parser target (fuzz/build.sh, clang) and
# run it for a bounded number of inputs from the seed corpus
# tests/sc/fuzz-seeds: no crash, leak, undefined behaviour or broken
# property (fuzz/sc_fuzz.c).  The run is the same every time (a fixed
# seed and number of runs), so a finding is a bug of the commit, never of
# the day: explore with other seeds by hand (SC_FUZZ_SEED, SC_FUZZ_RUNS)
# and add what they find to the seeds.  (owner: slurm.conf engine)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/fuzz.sh"

fuzz_target sc_fuzz sc/fuzz-seeds "${SC_FUZZ_SEED:-1}" "${SC_FUZZ_RUNS:-10000}" \
	"every seed runs clean" "no crash"
