#!/usr/bin/env bash
# The GitOps sequence of doc/gitops.md, run as a pipeline would: the
# cluster's slurm.conf kept in git, `mdcctl --remote plan --exit-code` as
# the pull request's check (0 no changes, 12 changes, 3 refused) and
# `mdcctl --remote --yes apply` on merge, from a directory where no Slurm
# command is on PATH and no slurm.conf is configured.  Slurm's own parser
# judges the file off the cluster; without it nothing is sent.  Real
# slurmctld and slurmrestd (slurm-lab --managed --rest), the emulator.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

command -v slurmrestd >/dev/null || skip_all "slurmrestd is not installed (scripts/install-deps)"
command -v git >/dev/null || skip_all "git is not installed"
lab_mdc_env --rest
plan 21
show_on_fail "$TEST_DIR/out" "$TEST_DIR/err"
patches() { grep -c '"method":"PATCH"' "$log"; }

# the repository: the cluster's slurm.conf, as an admin copied it once
R=$TEST_DIR/repo
mkdir -p "$R" "$TEST_DIR/bin"
cp "$SLURM_CONF" "$R/slurm.conf"
ln -s "$(command -v git)" "$TEST_DIR/bin/git"
git -C "$R" init -q && git -C "$R" -c user.email=ci@x -c user.name=ci add slurm.conf &&
	git -C "$R" -c user.email=ci@x -c user.name=ci commit -qm "the cluster's slurm.conf" ||
	{ echo "Bail out! git init failed"; exit 1; }

# the pipeline: no Slurm on PATH, no slurm.conf, the API and its token
# from the pipeline's secrets
ci() {
	(cd "$R" && env -u SLURM_CONF PATH="$TEST_DIR/bin" HOME="$TEST_DIR" MDC_CONF=/dev/null \
		"$MDCCTL" --remote "$@")
}
nok "the pipeline has no Slurm command" env PATH="$TEST_DIR/bin" sh -c 'command -v scontrol'

ci plan --exit-code slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 0 "the unchanged file: plan --exit-code exits 0 (no changes)"

# a pull request changes the partition's MaxTime
sed -i -E '/^PartitionName=debug /s/( MaxTime=[^ ]*|$)/ MaxTime=45/' "$R/slurm.conf"
git -C "$R" -c user.email=ci@x -c user.name=ci commit -qam "debug: MaxTime 45"
p=$(patches)
ci plan --exit-code slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 12 "the pull request's check: plan --exit-code exits 12 (changes)"
like "$(cat "$TEST_DIR/out")" "partition debug MaxTime: .*-> 45" "the plan shows the change"
like "$(cat "$TEST_DIR/out")" "^Slurm's verdict: accepted \\(checks: ours, Slurm's \\(" \
	"Slurm's own parser judged the file off the cluster"
rel=$(scontrol --version | grep -o '[0-9][0-9]*\.[0-9][0-9]*' | head -1)
like "$(cat "$TEST_DIR/out")" "^judged against Slurm $rel \\(the cluster's slurmrestd, through callSlurmRestApi\\)" \
	"the release judged against is the one the cluster's slurmrestd names"
is "$(patches)" "$p" "a plan sends nothing"

# without Slurm's parser nothing is judged, so nothing would be sent
MDC_LIBSLURMFULL=/nonexistent/libslurmfull.so ci plan --exit-code slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" "$EXIT_REFUSED" "without Slurm's parser the check is refused (exit 3), not skipped"
like "$(cat "$TEST_DIR/err")" "Slurm's verdict could not run .*off the cluster no change is sent without it: run mdcctl where the parser of Slurm [0-9.]+ .*is installed \\(Debian: slurm-wlm-basic-plugins" \
	"naming the release and the package to install"

# a bad pull request: refused, 3
cp "$R/slurm.conf" "$TEST_DIR/good.conf"
sed -i -E '/^PartitionName=debug /s/ MaxTime=45/ MaxTime=soon/' "$R/slurm.conf"
ci plan --exit-code slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" "$EXIT_REFUSED" "a bad value: plan --exit-code exits 3 (refused)"
like "$(cat "$TEST_DIR/err")" "MaxTime" "naming the key"
cp "$TEST_DIR/good.conf" "$R/slurm.conf"

# merged: apply
n=$(lab_syncs)
ci --yes apply slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 0 "on merge: apply --yes exits 0 (applied and verified)"
like "$(cat "$TEST_DIR/out")" "verify: ok: partition debug MaxTime=45" "verified through callSlurmRestApi"
lab_wait_sync "$n" || diag "not synced"
is "$(scontrol show partition debug | grep -o 'MaxTime=[^ ]*')" "MaxTime=00:45:00" \
	"the live slurmctld has the value from git"
is "$(patches)" $((p + 1)) "one update was sent"
ci plan --exit-code slurm.conf >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 0 "after the merge the repository and the cluster agree: exit 0"

# the exit codes a pipeline tells apart
ci plan --exit-code /nonexistent.conf >/dev/null 2>&1
like "$?" "^[1-9]" "a file that cannot be read: a failure, not 0 or 12"

# no --remote: with no Slurm here, mdcctl reads the cluster through the
# service by itself, and says so
sed -i -E '/^PartitionName=debug /s/ MaxTime=45/ MaxTime=50/' "$R/slurm.conf"
(cd "$R" && env -u SLURM_CONF PATH="$TEST_DIR/bin" HOME="$TEST_DIR" MDC_CONF=/dev/null \
	"$MDCCTL" plan --exit-code slurm.conf) >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 12 "without --remote and no local Slurm: the plan still runs (changes, 12)"
like "$(cat "$TEST_DIR/err")" "note: no local Slurm \\(no scontrol on PATH, no slurm.conf at .*as --remote does" \
	"saying it reads the cluster through the Slurm REST API"
like "$(cat "$TEST_DIR/out")" "^judged against Slurm $rel \\(the cluster's slurmrestd" "judged against the cluster's release"

# a parser of another release is no verdict: judged against 24.11 (or
# 22.05 from a 24.11 build) where no scontrol says which, Slurm's parser of
# this build does not run, and the check says so
other=24.11; [ "$rel" = 24.11 ] && other=22.05
printf 'SlurmRelease = %s\n' "$other" >"$TEST_DIR/other.conf"
env PATH="$TEST_DIR/bin" MDC_CONF="$TEST_DIR/other.conf" "$MDCCTL" conf check "$R/slurm.conf" \
	>"$TEST_DIR/out" 2>"$TEST_DIR/err"
like "$(cat "$TEST_DIR/out" "$TEST_DIR/err")" "Slurm's check was skipped: Slurm's parser here is Slurm $rel's and the file is judged against Slurm $other \\(SlurmRelease in mdc.conf\\)" \
	"SlurmRelease = $other: Slurm's parser of $rel does not judge, and says so"
