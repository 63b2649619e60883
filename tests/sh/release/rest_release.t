#!/usr/bin/env bash
# Off the cluster, the release judged against is the cluster's own: a real
# Slurm 24.11 lab (slurm-lab --release 24.11 --managed --rest, slurmrestd
# of 24.11 behind the emulator's callSlurmRestApi).  mdcctl --remote reads
# the release from slurmrestd's ping; the host's build (Slurm 22.05's
# parser) refuses to judge a 24.11 cluster's file and sends nothing, the
# build for 24.11 judges it, applies it, and the live 24.11 slurmctld has
# it.  Skipped (counted) only when MDC_RELEASES asks for no 24.11.
. "$top_srcdir/tests/lib/tap.sh"

case " ${MDC_RELEASES:-22.05 24.11} " in
*" 24.11 "*) ;;
*) skip_all "Slurm 24.11 is not in MDC_RELEASES" ;;
esac
command -v slurmrestd >/dev/null || skip_all "slurmrestd is not installed (scripts/install-deps)"
HOST_MDCCTL=$top_builddir/mdcctl
host_rel=$("$HOST_MDCCTL" --version | sed -n 's/.*, for Slurm \([0-9.]*\)$/\1/p')
[ -n "$host_rel" ] || { echo "Bail out! mdcctl --version names no Slurm release"; exit 1; }
[ "$host_rel" = 24.11 ] && skip_all "the host's own Slurm is 24.11: no other release to refuse"
export MDC_LAB_RELEASE=24.11
. "$top_srcdir/tests/lib/lab.sh"
lab_mdc_env --rest
plan 9
show_on_fail "$TEST_DIR/out" "$TEST_DIR/err"
patches() { grep -c '"method":"PATCH"' "$log"; }

cp "$SLURM_CONF" "$TEST_DIR/slurm.conf"
sed -i -E '/^PartitionName=debug /s/( MaxTime=[^ ]*|$)/ MaxTime=45/' "$TEST_DIR/slurm.conf"
off() { (cd "$TEST_DIR" && env -u SLURM_CONF MDC_CONF=/dev/null "$@"); }
p=$(patches)

# the host's build: its parser is 22.05's, the cluster says 24.11
off env PATH=/nonexistent "$HOST_MDCCTL" --remote --yes apply slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" "$EXIT_REFUSED" "a $host_rel build off a 24.11 cluster: refused (exit 3)"
like "$(cat "$TEST_DIR/out")" "^judged against Slurm 24.11 \\(the cluster's slurmrestd, through callSlurmRestApi\\)" \
	"the release is the one the cluster's slurmrestd names"
like "$(cat "$TEST_DIR/err")" "Slurm's parser here is Slurm $host_rel's and the file is judged against Slurm 24.11 .*run mdcctl where the parser of Slurm 24.11 .* is installed" \
	"saying why and which parser to use"
is "$(patches)" "$p" "nothing was sent"

# the build for 24.11, in its root: judged, applied, verified
off "$MDCCTL" --remote plan --exit-code slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 12 "the 24.11 build: plan --exit-code exits 12 (changes)"
like "$(cat "$TEST_DIR/out")" "^Slurm's verdict: accepted \\(checks: ours, Slurm's \\(" \
	"Slurm 24.11's own parser judged the file"
n=$(lab_syncs)
off "$MDCCTL" --remote --yes apply slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 0 "the 24.11 build: apply --yes exits 0 (applied and verified)"
lab_wait_sync "$n" || diag "not synced"
is "$(scontrol show partition debug | grep -o 'MaxTime=[^ ]*')" "MaxTime=00:45:00" \
	"the live slurmctld 24.11 has the value"
like "$(scontrol --version)" "^slurm(-wlm)? 24\\.11" "and it is 24.11's slurmctld that was asked"
