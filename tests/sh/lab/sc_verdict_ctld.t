#!/usr/bin/env bash
# sc_verdict_ctld.t - mdc-scontrol gets the controller's verdict too: a
# partition update the client parser takes but slurmctld
# stops on at start (TRESBillingWeights it cannot parse) is refused with
# slurmctld's fatal line from its sandboxed start-up; nothing is sent to
# the emulator, the live partition is unchanged and the lab's slurmctld
# keeps its pid.  A good value of the same key goes through.  The verdict
# is the lab's release's: run again whole, once per release of
# MDC_RELEASES but 22.05 (default 24.11), with MDC_LAB_RELEASE set (a lab,
# mdcctl, mdc-scontrol and slurmctld sandbox of that release, in its root:
# tests/lib/lab.sh), one line each.  (owner: verdict)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || skip_all "no slurmctld"
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
plan $((11 + ${#AGAIN[@]}))

npatch() { grep -c '"method":"PATCH"' "$log"; }
pval() { scontrol show partition "$1" --oneliner | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
ctldpid() { local p; read -r p 2>/dev/null <"$LAB_DIR/run/slurmctld.pid" && kill -0 "$p" 2>/dev/null && echo "$p"; }
ctld0=$(ctldpid)
ok "the lab's slurmctld runs" test -n "$ctld0"
FATAL="slurmctld: fatal: failed to parse tres weights str 'bogus=1'"

# the client parser alone takes it: only slurmctld's start-up refuses it
cp "$SLURM_CONF" "$TEST_DIR/tres.conf"
sed -i 's/^\(PartitionName=debug .*\)$/\1 TRESBillingWeights=bogus=1/' "$TEST_DIR/tres.conf"
out=$(MDC_SLURMCTLD= "$MDCCTL" conf check "$TEST_DIR/tres.conf" 2>&1); rc=$?
is "$rc" "$EXIT_OK" "without slurmctld's start-up, the client parser accepts TRESBillingWeights=bogus=1"
like "$out" "^judged against Slurm $REL " "... judged against the lab's release, Slurm $REL"

before=$(npatch)
out=$("$MS" update PartitionName=debug TRESBillingWeights=bogus=1 2>&1 </dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "mdc-scontrol update PartitionName=debug TRESBillingWeights=bogus=1 is refused"
like "$out" "$(printf '%s' "$FATAL" | sed 's/[.*[]/\\&/g')" "... with slurmctld's fatal line"
like "$out" "nothing was sent|Nothing will be sent" "... saying nothing was sent"
is "$(npatch)" "$before" "... and nothing was sent to the emulator"
is "$(pval debug TRESBillingWeights)" "" "the live partition has no TRESBillingWeights"
is "$(ctldpid)" "$ctld0" "the lab's slurmctld still runs, same pid"

# a value slurmctld parses goes through (the verdict does not refuse the key)
n=$(lab_syncs)
out=$("$MS" update PartitionName=debug TRESBillingWeights=CPU=2.0 2>&1 </dev/null); rc=$?
is "$rc" "$EXIT_OK" "TRESBillingWeights=CPU=2.0 is accepted" || diag "$out"
lab_wait_sync "$n" >/dev/null 2>&1
is "$(pval debug TRESBillingWeights)" "CPU=2.0" "... and reaches the live partition"

# the same on each other release (its own lab: released by its own test)
for r in "${AGAIN[@]}"; do
	out=$(MDC_LAB_RELEASE=$r timeout 900 bash "$top_srcdir/tests/sh/lab/sc_verdict_ctld.t" 2>&1); rc=$?
	n_ok=$(grep -c '^ok ' <<<"$out")
	n_bad=$(grep -c '^not ok ' <<<"$out")
	if [ "$rc" = 0 ] && [ "$n_bad" = 0 ] && [ "$n_ok" = 11 ]; then
		pass "Slurm $r: the same, against its lab and its slurmctld's start-up ($n_ok checks)"
	else
		fail "Slurm $r: the same, against its lab and its slurmctld's start-up (exit $rc, $n_ok ok, $n_bad not ok)" \
			"$(grep -A4 '^not ok \|^Bail out' <<<"$out" | head -40)"
	fi
done
