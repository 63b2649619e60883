#!/usr/bin/env bash
# verdict_lab.t - Slurm's verdict before anything is sent, on the managed
# lab (real slurmctld fed by the emulator): settings every Slurm client
# would die on ("fatal: Unable to process configuration file") are refused
# by config set, partition update, plan, apply and mdc-scontrol with
# Slurm's words and nothing is sent (the emulator's request log), squeue
# still works; and equal values are equal: apply of PreemptMode=SUSPEND,GANG
# verifies as applied, 7-0 plans as 7-00:00:00.  (owner: verdict)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
lab_up --managed

MDCCTL=$top_builddir/mdcctl
MS=$top_builddir/mdc-scontrol
export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_ACCESS_TOKEN VISUAL
log=$LAB_DIR/emu/requests.log
show_on_fail "$log"
npatch() { jq -s '[.[] | select(.method == "PATCH")] | length' "$log"; }
cval() { scontrol show config | sed -n "s/^$1 *= //p"; }

# refused KIND WORDS CMD...: exit EXIT_REFUSED, Slurm's words, "nothing was sent", no PATCH
refused() {
	local what=$1 words=$2 before out rc; shift 2
	before=$(npatch)
	out=$("$@" 2>&1 </dev/null); rc=$?
	if [ "$rc" = "$EXIT_REFUSED" ] && printf '%s' "$out" | grep -qF -- "$words" &&
	   printf '%s' "$out" | grep -q 'nothing was sent\|Nothing will be sent' &&
	   [ "$(npatch)" = "$before" ]; then
		pass "$what: refused with Slurm's words, nothing sent"
		diag "$(printf '%s\n' "$out" | grep 'error:' | head -1)"
	else
		fail "$what: refused with Slurm's words, nothing sent" "exit $rc" "$out" \
			"expected: $words" "PATCHes before $before, now $(npatch)"
	fi
}

refused "config set PreemptMode=REQUEUE (no PreemptType)" \
	"PreemptType and PreemptMode values incompatible" "$MDCCTL" --yes config set PreemptMode=REQUEUE
refused "config set PreemptMode=SUSPEND without GANG" "PreemptMode=SUSPEND requires GANG too" \
	"$MDCCTL" --yes config set PreemptType=preempt/partition_prio PreemptMode=SUSPEND
refused "config set PreemptMode=BOGUS" "PreemptMode=BOGUS invalid" \
	"$MDCCTL" --yes config set PreemptMode=BOGUS
refused "config set AccountingStorageEnforce=bogus" \
	"Invalid parameter for AccountingStorageEnforce: bogus" \
	"$MDCCTL" --yes config set AccountingStorageEnforce=bogus
refused "config set SelectTypeParameters=CR_Cores" "Bad SelectTypeParameter: CR_Cores" \
	"$MDCCTL" --yes config set SelectTypeParameters=CR_Cores
out=$("$MDCCTL" --yes config set PreemptMode=REQUEUE 2>&1)
like "$out" "write PreemptType=preempt/partition_prio|set PreemptType=preempt/partition_prio" \
	"the message says what to do"
# on 24.11 and later our word list of that release (read from its source)
# refuses the word before Slurm's parser does
pm_words='Bad value "bogus" for PreemptMode'
[ -n "${MDC_LAB_RELEASE:-}" ] && [ "$MDC_LAB_RELEASE" != 22.05 ] &&
	pm_words="PreemptMode='bogus': unknown word 'bogus'"
refused "partition update debug PreemptMode=bogus" "$pm_words" \
	"$MDCCTL" --yes partition update debug PreemptMode=bogus
refused "mdc-scontrol update PartitionName=debug PreemptMode=bogus" "$pm_words" \
	"$MS" update PartitionName=debug PreemptMode=bogus

# plan and apply of an edited slurm.conf
cp "$SLURM_CONF" "$TEST_DIR/bad.conf"
echo PreemptMode=REQUEUE >>"$TEST_DIR/bad.conf"
refused "plan of a file with PreemptMode=REQUEUE alone" "PreemptType and PreemptMode values incompatible" \
	"$MDCCTL" plan "$TEST_DIR/bad.conf"
out=$("$MDCCTL" plan "$TEST_DIR/bad.conf" 2>&1)
like "$out" "^Slurm's verdict: refused \\(checks: ours, Slurm's" "plan shows the verdict and which checks ran"
refused "apply of that file" "PreemptType and PreemptMode values incompatible" \
	"$MDCCTL" --yes apply "$TEST_DIR/bad.conf"
export EDITOR="sed -i -e '\$a SelectTypeParameters=CR_Cores'"
refused "edit adding SelectTypeParameters=CR_Cores" "Bad SelectTypeParameter: CR_Cores" \
	"$MDCCTL" --yes edit
unset EDITOR

ok "squeue still works" squeue
ok "sinfo still works" sinfo
ok "scontrol still reads the file" scontrol show config

# without libslurmfull: our checks still refuse, and the tool says Slurm's check was skipped
out=$(MDC_LIBSLURMFULL= "$MDCCTL" plan "$TEST_DIR/bad.conf" 2>&1)
like "$out" "Slurm's check was skipped" "plan without libslurmfull says Slurm's check was skipped"
refused "without libslurmfull, our check still refuses" "needs a PreemptType" \
	env MDC_LIBSLURMFULL= "$MDCCTL" --yes config set PreemptMode=REQUEUE

# a good preemption setting plans with Slurm's blessing and verifies as applied
cp "$SLURM_CONF" "$TEST_DIR/gang.conf"
printf '%s\n' PreemptType=preempt/partition_prio PreemptMode=SUSPEND,GANG >>"$TEST_DIR/gang.conf"
out=$("$MDCCTL" plan "$TEST_DIR/gang.conf" 2>&1)
like "$out" "^Slurm's verdict: accepted \\(checks: ours, Slurm's" "plan: Slurm accepts SUSPEND,GANG"
out=$("$MDCCTL" --yes apply --verify-timeout 60 "$TEST_DIR/gang.conf" 2>&1); rc=$?
is "$rc" "$EXIT_OK" "apply of PreemptMode=SUSPEND,GANG exits 0"
like "$out" "verify: ok: config PreemptMode=" "verify sees PreemptMode applied (GANG,SUSPEND is SUSPEND,GANG)"
unlike "$out" "NOT APPLIED" "no false NOT APPLIED"
is "$(cval PreemptType)" "preempt/partition_prio" "slurmctld has the PreemptType"

# equal values are equal: 7-0 in the file plans clean once the spec has 7-00:00:00
ok "config set PriorityDecayHalfLife=7-00:00:00 PriorityCalcPeriod=00:10:00" \
	"$MDCCTL" --yes config set PriorityDecayHalfLife=7-00:00:00 PriorityCalcPeriod=00:10:00
before=$(npatch)
out=$("$MDCCTL" --yes config set PriorityDecayHalfLife=7-0 PriorityCalcPeriod=10 2>&1)
is "$(npatch)" "$before" "the same values in another spelling send nothing"
sed -e 's/^PriorityDecayHalfLife=.*/PriorityDecayHalfLife=7-0/' \
    -e 's/^PriorityCalcPeriod=.*/PriorityCalcPeriod=10/' \
    -e 's/^PreemptMode=.*/PreemptMode=GANG,SUSPEND/' "$SLURM_CONF" >"$TEST_DIR/same.conf"
out=$("$MDCCTL" plan "$TEST_DIR/same.conf" 2>&1)
is "$out" "No changes: the managed spec already matches." "7-0, 10 and GANG,SUSPEND plan as no change"

done_testing
