#!/usr/bin/env bash
# Stands for the cmocka suites when configure found no cmocka: they are
# counted as skipped, with the reason, not as failed.
. "$top_srcdir/tests/lib/tap.sh"
skip_all "cmocka not found by configure: the unit tests are not built (apt-get install libcmocka-dev, then configure again)"
