#!/usr/bin/env bash
# The same proofs on another Slurm release: each test below, written for
# the host's 22.05, runs again whole against real daemons of every release
# in MDC_RELEASES but 22.05 (default 24.11), with MDC_LAB_RELEASE set: its
# labs are that release's (slurm-lab --release) and its tools the
# project's build for that release, run in the release's root
# (tests/lib/lab.sh).  One line per test and release; a failing one shows
# its failing checks.  Skipped (counted) only when no other release is
# asked for.
#
#   roundtrip_partition.t  settings kept through regeneration and restart
#   roundtrip_preempt.t    the preemption round trip
#   drift_lab.t            drift, with adopt
#   verdict_lab.t          Slurm's verdict: what its parser refuses is refused
#   nodepool_scale_job.t   the scale-down guard under a running job
#   jobs_lab.t             the job wait policy with both plugins (spank_mdc,
#                          job_submit/mdc) and the enforcer
#   jobs_enforce.t         the policy enforced by mdcd's own loop
#   jobs_fallback_access.t a fall-back the job's user may not run in
#   jobs_fallback_default.t  ... judged with the user's default account and
#                          QOS (with slurmdbd)
#   mdcd_broker.t          mdcd with munge, its plain-user and admin clients
#                          (lab_release_user, lab_setpriv: users in the root)
. "$top_srcdir/tests/lib/tap.sh"

PROOFS=(roundtrip_partition.t roundtrip_preempt.t drift_lab.t verdict_lab.t nodepool_scale_job.t
	jobs_lab.t jobs_enforce.t jobs_fallback_access.t jobs_fallback_default.t mdcd_broker.t)
RELS=()
for r in ${MDC_RELEASES:-22.05 24.11}; do
	[ "$r" = 22.05 ] || RELS+=("$r")
done
[ ${#RELS[@]} -gt 0 ] || skip_all "no release but 22.05 in MDC_RELEASES"
[ "$(id -u)" = 0 ] || skip_all "a Slurm lab needs root"
plan $((${#PROOFS[@]} * ${#RELS[@]}))

for r in "${RELS[@]}"; do
	for t in "${PROOFS[@]}"; do
		out=$(MDC_LAB_RELEASE=$r timeout 900 bash "$top_srcdir/tests/sh/lab/$t" 2>&1)
		rc=$?
		n_ok=$(grep -c '^ok ' <<<"$out")
		n_bad=$(grep -c '^not ok ' <<<"$out")
		planned=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' <<<"$out" | head -1)
		if [ "$rc" = 0 ] && [ "$n_bad" = 0 ] && [ -n "$planned" ] && [ "$n_ok" = "$planned" ]; then
			pass "Slurm $r: $t ($n_ok checks)"
		else
			fail "Slurm $r: $t (exit $rc, $n_ok ok, $n_bad not ok of ${planned:-?})" \
				"$(grep -A4 '^not ok \|^Bail out' <<<"$out" | head -40)"
		fi
	done
done
