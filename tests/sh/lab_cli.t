#!/usr/bin/env bash
# slurm-lab's command line: help, version, and usage errors (exit 2) that
# start nothing.  Needs neither root nor Slurm.
. "$top_srcdir/tests/lib/tap.sh"

lab=$top_srcdir/scripts/slurm-lab
plan 14

out=$("$lab" --help 2>&1); rc=$?
is "$rc" 0 "--help exits 0"
like "$out" '^ *slurm-lab up DIR \[--managed\]' "--help shows the up synopsis"
like "$out" '^ *slurm-lab down DIR$' "--help shows down"
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
usage "--plugindir '$TEST_DIR/none' is not a directory" up "$TEST_DIR/x" --plugindir "$TEST_DIR/none"
usage "unexpected argument 'y'" up "$TEST_DIR/x" y
usage 'down needs exactly one directory' down
ok "nothing was created by the refused commands" test ! -e "$TEST_DIR/x"
