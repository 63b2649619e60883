#!/usr/bin/env bash
# scripts/demo's core on the tree already built: it must tell the round
# trip and end with the verdict that scontrol's changes were lost and
# mdc-scontrol's/mdcctl's survived.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_need
[ -x "$top_builddir/mdc-emulator" ] || skip_all "mdc-emulator is not built"
plan 9

# the demo's lab lives under TMPDIR; stop it even if the demo is killed
export TMPDIR=$TEST_DIR
at_exit 'for d in "$TEST_DIR"/mdc-demo.*/lab; do [ -d "$d" ] && "$top_srcdir/scripts/slurm-lab" down "$d"; done'

out=$(MDC_SKIP_INSTALL=1 MDC_SKIP_BUILD=1 MDC_BUILD_DIR=$top_builddir \
	"$top_srcdir/scripts/demo" 2>&1)
rc=$?
diag "$out"
is "$rc" 0 "scripts/demo exits 0"
# (like greps line by line: ^ and $ anchor a whole line)
like "$out" '^\$ mdc-scontrol update PartitionName=debug PriorityTier=5$' "it shows the mdc-scontrol command"
like "$out" '^\$ scontrol update PartitionName=debug MaxTime=30$' "and the plain scontrol one"
like "$out" "partition debug +MaxTime +00:30:00 +UNLIMITED" "drift shows what will be lost"
like "$out" '^LOST: scontrol update PartitionName=debug MaxTime=30 -> MaxTime=UNLIMITED after the regeneration$' \
	"verdict: scontrol's MaxTime lost"
like "$out" '^KEPT: mdc-scontrol update PartitionName=debug PriorityTier=5 -> PriorityTier=5 after the regeneration and a restart$' \
	"verdict: mdc-scontrol's PriorityTier kept"
like "$out" '^KEPT: mdc-scontrol create PartitionName=long -> MaxTime=2-00:00:00 after' "verdict: created partition kept"
like "$out" '^KEPT: mdcctl config set PreemptType=preempt/partition_prio PreemptMode=REQUEUE -> preempt/partition_prio REQUEUE after' \
	"verdict: preemption kept"
is "$(printf '%s\n' "$out" | tail -1)" \
	"demo: the round trip held: scontrol changes were lost, mdc-scontrol/mdcctl changes survived" \
	"the final line says the story held"
