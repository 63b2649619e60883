#!/usr/bin/env bash
# Every program answers --version and --help, and rejects an unknown option
# with a usage exit code.
. "$top_srcdir/tests/lib/tap.sh"

progs=()
for p in mdcctl mdc-scontrol mdc-emulator; do
	[ -x "$top_builddir/$p" ] && progs+=("$p")
done
plan $(( ${#progs[@]} * 3 ))
for p in "${progs[@]}"; do
	out=$("$top_builddir/$p" --version 2>&1)
	like "$out" "^$p .*[0-9]+\.[0-9]+\.[0-9]+" "$p --version prints name and version"
	out=$("$top_builddir/$p" --help 2>&1)
	like "$out" "[Uu]sage" "$p --help prints usage"
	"$top_builddir/$p" --no-such-option >/dev/null 2>&1
	is "$?" "$EXIT_USAGE" "$p rejects an unknown option with exit $EXIT_USAGE (usage)"
done
