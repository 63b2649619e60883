#!/usr/bin/env bash
# Stands for test_sc_options when configure found no libslurmfull to
# compare our option table with.
. "$top_srcdir/tests/lib/tap.sh"
skip_all "libslurmfull.so not found by configure: test_sc_options is not built (apt-get install slurm-wlm-basic-plugins, or --with-slurmfull-dir)"
