#!/usr/bin/env bash
# verdict_ctld.t - the controller's own verdict: options
# the client parser takes but slurmctld dies on at the reload (FastSchedule,
# removed in 20.11) are refused by config set, plan, apply and conf check
# with slurmctld's fatal line, because the release's slurmctld starts on
# the rendered file in a sandbox first; nothing is sent to the emulator
# and the lab's slurmctld keeps running (same pid).  Without slurmctld the
# verdict says its check was skipped.  (owner: verdict)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
command -v slurmctld >/dev/null || [ -x /usr/sbin/slurmctld ] || skip_all "no slurmctld"
lab_up --managed

MDCCTL=$top_builddir/mdcctl
export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_ACCESS_TOKEN VISUAL
log=$LAB_DIR/emu/requests.log
show_on_fail "$log"
npatch() { jq -s '[.[] | select(.method == "PATCH")] | length' "$log"; }
# the lab's slurmctld: its pid while that process is alive
ctldpid() { local p; read -r p 2>/dev/null <"$LAB_DIR/run/slurmctld.pid" && kill -0 "$p" 2>/dev/null && echo "$p"; }
ctld0=$(ctldpid)
ok "the lab's slurmctld runs" test -n "$ctld0"
FATAL="fatal: The FastSchedule option has been removed"

refused() {
	local what=$1 words=$2 before out rc; shift 2
	before=$(npatch)
	out=$("$@" 2>&1 </dev/null); rc=$?
	if [ "$rc" = "$EXIT_REFUSED" ] && printf '%s' "$out" | grep -qF -- "$words" &&
	   printf '%s' "$out" | grep -q 'nothing was sent\|Nothing will be sent' &&
	   [ "$(npatch)" = "$before" ]; then
		pass "$what: refused with slurmctld's words, nothing sent"
		diag "$(printf '%s\n' "$out" | grep 'error:' | head -1)"
	else
		fail "$what: refused with slurmctld's words, nothing sent" "exit $rc" "$out" \
			"expected: $words" "PATCHes before $before, now $(npatch)"
	fi
}

refused "config set FastSchedule=2" "slurmctld: $FATAL" "$MDCCTL" --yes config set FastSchedule=2
refused "config set FastSchedule=0" "slurmctld: $FATAL" "$MDCCTL" --yes config set FastSchedule=0
cp "$SLURM_CONF" "$TEST_DIR/fs.conf"
echo FastSchedule=2 >>"$TEST_DIR/fs.conf"
refused "plan of a file with FastSchedule=2" "slurmctld: $FATAL" "$MDCCTL" plan "$TEST_DIR/fs.conf"
out=$("$MDCCTL" plan "$TEST_DIR/fs.conf" 2>&1)
like "$out" "^Slurm's verdict: refused" "plan says refused, not accepted"
refused "apply --yes of that file" "slurmctld: $FATAL" "$MDCCTL" --yes apply "$TEST_DIR/fs.conf"
out=$("$MDCCTL" conf check "$TEST_DIR/fs.conf" 2>&1); rc=$?
is "$rc" "$EXIT_PARSE" "conf check of that file fails"
like "$out" "error: slurmctld: $FATAL" "conf check shows slurmctld's fatal line"

is "$(ctldpid)" "$ctld0" "the lab's slurmctld still runs, same pid"
ok "scontrol ping answers" scontrol ping
ok "squeue still works" squeue

# the live file is accepted by the controller too, and it says so
start=$(date +%s%N)
out=$("$MDCCTL" conf check "$SLURM_CONF" 2>&1); rc=$?
diag "conf check of the live file, slurmctld's start-up included: $((($(date +%s%N) - start) / 1000000)) ms"
is "$rc" "$EXIT_OK" "conf check of the live file passes"
like "$out" "slurmctld's start-up \\(" "its checks name slurmctld's start-up"

# no slurmctld: never a silent pass
out=$(MDC_SLURMCTLD= "$MDCCTL" conf check "$TEST_DIR/fs.conf" 2>&1); rc=$?
is "$rc" "$EXIT_OK" "without slurmctld the client parser alone accepts FastSchedule=2"
like "$out" "slurmctld's start-up was skipped: turned off" "and the verdict says slurmctld's check was skipped"
out=$(MDC_SLURMCTLD= "$MDCCTL" plan "$TEST_DIR/fs.conf" 2>&1)
like "$out" "slurmctld's (check|start-up) was skipped" "plan without slurmctld says so"
is "$(ctldpid)" "$ctld0" "the lab's slurmctld still runs at the end"

done_testing
