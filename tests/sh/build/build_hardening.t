#!/usr/bin/env bash
# build_hardening.t - every program and plugin of the build is hardened:
# full RELRO (relro + now), no executable stack, the stack protector and
# fortified libc calls, whatever CFLAGS the builder passed.
. "$top_srcdir/tests/lib/tap.sh"

command -v readelf >/dev/null 2>&1 || skip_all "readelf is not installed (binutils)"
FILES=(mdcctl mdc-scontrol mdc-emulator mdc-slurmcheck plugins/job_submit/.libs/job_submit_mdc.so plugins/spank/.libs/spank_mdc.so)
[ -x "$top_builddir/mdcctl" ] || skip_all "not built"
# mdcd is built only with libmunge
[ -x "$top_builddir/mdcd" ] && FILES+=(mdcd)
plan $(( ${#FILES[@]} * 4 ))
for f in "${FILES[@]}"; do
	p=$top_builddir/$f
	ok "$f: RELRO" sh -c "readelf -lW '$p' | grep -q GNU_RELRO"
	ok "$f: bind now" sh -c "readelf -dW '$p' | grep -Eq 'BIND_NOW|FLAGS.*NOW'"
	ok "$f: non-executable stack" sh -c "readelf -lW '$p' | grep GNU_STACK | grep -qv RWE"
	# a program with no array on its stack never calls the check: then its
	# compile line (DWARF producer) must show the flag
	ok "$f: stack protector" sh -c "readelf -sW --dyn-syms '$p' | grep -q __stack_chk_fail ||
		readelf --debug-dump=info '$p' 2>/dev/null | grep -q 'DW_AT_producer.*-fstack-protector-strong'"
done
