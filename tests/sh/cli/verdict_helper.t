#!/usr/bin/env bash
# verdict_helper.t - Slurm's parser runs in the helper program
# mdc-slurmcheck (never in a forked copy of the caller): mdcctl finds it
# through $MDC_SLURMCHECK_HELPER or next to itself, a missing helper is a
# skipped check named as such, and the helper's own exits (usage,
# unusable library, Slurm's refusal) are the ones lib/mdc_slurmcheck.c
# reads.  (owner: fix)
. "$top_srcdir/tests/lib/tap.sh"

DATA=$top_srcdir/tests/conf-cases
HELPER=$top_builddir/mdc-slurmcheck
D=$TEST_DIR
LIB=$(mdcctl conf check "$DATA/base.conf" 2>&1 | sed -n "s/.*Slurm's (\([^)]*\)).*/\1/p")
[ -n "$LIB" ] || skip_all "no libslurmfull: Slurm's check never runs here"

plan 9
{ cat "$DATA/base.conf"; echo 'PreemptMode=BOGUS'; } > "$D/bad.conf"

out=$("$HELPER" 2>&1); rc=$?
is "$rc" "$EXIT_USAGE" "the helper without its two arguments: exit $EXIT_USAGE (usage)"
like "$out" '^usage: mdc-slurmcheck LIBSLURMFULL SLURM_CONF' "and its usage line"
# 3 (unusable library) and 1 (Slurm refuses) are the helper's own protocol
# with lib/mdc_slurmcheck.c (see tools/mdc-slurmcheck), not lib/base/mdc_err.c's
# table: bare numbers on purpose
out=$("$HELPER" /nonexistent/libslurmfull.so "$D/bad.conf" 2>&1); rc=$?
is "$rc" 3 "an unusable library: exit 3"
like "$out" '^mdc-skip: cannot load /nonexistent/libslurmfull.so' "with the reason for the verdict"
out=$(SLURM_CONF=$DATA/base.conf "$HELPER" "$LIB" "$D/bad.conf" 2>&1); rc=$?
is "$rc" 1 "Slurm's parser refuses the file it is given, not \$SLURM_CONF"
like "$out" 'PreemptMode=BOGUS invalid' "in Slurm's own words"

# mdcctl through the helper the tests export, then the one next to it
out=$(mdcctl conf check "$D/bad.conf" 2>&1)
like "$out" "error: Slurm: PreemptMode=BOGUS invalid" "mdcctl reports Slurm's words through the helper"
out=$(env -u MDC_SLURMCHECK_HELPER "$top_builddir/mdcctl" conf check "$D/bad.conf" 2>&1)
like "$out" "error: Slurm: PreemptMode=BOGUS invalid" "without the variable: the helper next to mdcctl"
out=$(MDC_SLURMCHECK_HELPER=/nonexistent/mdc-slurmcheck mdcctl conf check "$DATA/base.conf" 2>&1)
like "$out" "ok; checks: ours; Slurm's check was skipped: the check program mdc-slurmcheck is not installed" \
	"a missing helper is a skipped check, named"
