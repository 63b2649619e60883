#!/usr/bin/env bash
# slurm-lab's command line: help, version, and usage errors (exit 2) that
# start nothing.  Needs neither root nor Slurm.
. "$top_srcdir/tests/lib/tap.sh"

lab=$top_srcdir/scripts/slurm-lab
plan 21

out=$("$lab" --help 2>&1); rc=$?
is "$rc" 0 "--help exits 0"
like "$out" '^ *slurm-lab up DIR \[--managed\]' "--help shows the up synopsis"
like "$out" '^ *slurm-lab down DIR$' "--help shows down"
like "$out" '\[--lro-seconds S\]' "--help shows --lro-seconds"
like "$("$lab" --version 2>&1)" '^slurm-lab [0-9]+\.[0-9]+\.[0-9]+$' "--version prints name and version"

# usage ERROR-REGEX ARGS...: exit 2, one line naming the problem, no DIR made
usage() {
	local want=$1 out rc; shift
	out=$("$lab" "$@" 2>&1); rc=$?
	if [ "$rc" = 2 ] && printf '%s' "$out" | grep -Eq -- "$want"; then
		pass "$* -> exit 2: $out"
	else
		fail "$* -> exit 2 matching /$want/" "exit $rc" "$out"
	fi
}
usage "unknown command 'bogus'" bogus
usage 'up needs a directory' up
usage "unknown option '--frobnicate'" up "$TEST_DIR/x" --frobnicate
usage "option '--port-base' needs a value" up "$TEST_DIR/x" --port-base
usage "invalid --port-base 'abc'" up "$TEST_DIR/x" --port-base abc
usage "invalid --port-base '80'" up "$TEST_DIR/x" --port-base 80
usage "invalid --lro-seconds '-1'" up "$TEST_DIR/x" --managed --lro-seconds -1
usage "invalid --lro-seconds 'soon'" up "$TEST_DIR/x" --managed --lro-seconds=soon
usage "--lro-seconds needs --managed" up "$TEST_DIR/x" --lro-seconds 0
usage "--plugindir '$TEST_DIR/none' is not a directory" up "$TEST_DIR/x" --plugindir "$TEST_DIR/none"
usage "unexpected argument 'y'" up "$TEST_DIR/x" y
usage 'down needs exactly one directory' down
ok "nothing was created by the refused commands" test ! -e "$TEST_DIR/x"

# --managed without an emulator anywhere: a clear error before anything
# starts (a copy of the script, so no build tree sits next to it)
mkdir -p "$TEST_DIR/bin" "$TEST_DIR/empty"
cp "$lab" "$TEST_DIR/bin/slurm-lab"
cp "$(dirname "$lab")/lab-common.sh" "$TEST_DIR/bin/"	# it sources its helpers beside it
out=$(env MDC_BUILDDIR="$TEST_DIR/empty" top_builddir="$TEST_DIR/empty" PATH=/usr/bin:/bin \
	"$TEST_DIR/bin/slurm-lab" up "$TEST_DIR/m" --managed 2>&1)
rc=$?
is "$rc" 1 "up --managed without mdc-emulator fails"
like "$out" "^slurm-lab: --managed needs mdc-emulator, which is not built yet" "and says so"
ok "without starting anything" test ! -e "$TEST_DIR/m"
