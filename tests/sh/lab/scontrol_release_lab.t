#!/usr/bin/env bash
# scontrol_release_lab.t - mdc-scontrol on a managed lab reads keys as the
# lab's release's scontrol, end to end: on 22.05 Po=yes
# is no key (refused, naming 22.05 and what 24.11 reads, nothing sent); on
# 24.11 it is PowerDownOnIdle, sent and in the regenerated slurm.conf.  A key every release
# reads alike (MaxT=) goes through on both.  The release comes from the
# lab's own scontrol --version.  On the host's run the test runs again
# whole for each release of MDC_RELEASES but 22.05 (default 24.11) with
# MDC_LAB_RELEASE set (tests/lib/lab.sh), one line each.  (owner: scontrol)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
REL=${MDC_LAB_RELEASE:-22.05}
AGAIN=()
if [ "$REL" = 22.05 ] && [ "$(id -u)" = 0 ]; then
	for r in ${MDC_RELEASES:-22.05 24.11}; do
		[ "$r" = 22.05 ] || AGAIN+=("$r")
	done
fi
lab_mdc_env
export MDC_LOCK_DIR=$TEST_DIR
unset MDC_ACCESS_TOKEN VISUAL
plan $((5 + ${#AGAIN[@]}))

npatch() { grep -c '"method":"PATCH"' "$log"; }
pval() { scontrol show partition "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }

is "$(scontrol --version | sed -n 's/^slurm[^ ]* \([0-9]*\.[0-9]*\).*/\1/p')" "$REL" "the lab's scontrol is Slurm $REL"

# read alike by every release
n=$(lab_syncs)
out=$("$MS" update PartitionName=debug MaxT=45 2>&1 </dev/null); rc=$?
is "$rc" "$EXIT_OK" "Slurm $REL: MaxT=45 is MaxTime" || diag "$out"
lab_wait_sync "$n" >/dev/null 2>&1
is "$(pval debug MaxTime)" "00:45:00" "... and reaches the live partition"

# Po=: 24.11's PowerDownOnIdle, no key of 22.05's scontrol
before=$(npatch)
n=$(lab_syncs)
out=$("$MS" update PartitionName=debug Po=yes 2>&1 </dev/null); rc=$?
if [ "$REL" = 22.05 ]; then
	like "$rc:$out" "^$EXIT_INVAL:.*unknown key 'Po': scontrol 22.05 does not update it \\(scontrol 24.11 reads it as PowerDownOnIdle" \
		"Slurm 22.05: Po=yes is refused, naming 22.05 and what 24.11 reads"
	is "$(npatch)" "$before" "... and nothing was sent"
else
	sent=$(grep '"method":"PATCH"' "$log" | tail -1 |
		jq -c '.body.orchestrator_spec.slurm_spec.partitions[] | select(.id == "debug") | .config.PowerDownOnIdle')
	is "$rc:$sent" "$EXIT_OK:\"YES\"" "Slurm $REL: Po=yes is sent as PowerDownOnIdle=YES" || diag "$out"
	# (scontrol shows it only with power saving on: read the regenerated file)
	lab_wait_sync "$n" >/dev/null 2>&1
	like "$(grep '^PartitionName=debug ' "$SLURM_CONF")" " PowerDownOnIdle=YES( |$)" \
		"... and is in the partition line of the regenerated slurm.conf"
fi

for r in "${AGAIN[@]}"; do
	out=$(MDC_LAB_RELEASE=$r timeout 900 bash "$top_srcdir/tests/sh/lab/scontrol_release_lab.t" 2>&1); rc=$?
	n_ok=$(grep -c '^ok ' <<<"$out")
	n_bad=$(grep -c '^not ok ' <<<"$out")
	if [ "$rc" = 0 ] && [ "$n_bad" = 0 ] && [ "$n_ok" = 5 ]; then
		pass "Slurm $r: the same on its lab ($n_ok checks)"
	else
		fail "Slurm $r: the same on its lab (exit $rc, $n_ok ok, $n_bad not ok)" \
			"$(grep -A4 '^not ok \|^Bail out' <<<"$out" | head -40)"
	fi
done
