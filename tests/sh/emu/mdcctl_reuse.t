#!/usr/bin/env bash
# libcurl is the one HTTP client, and a command's requests
# share one connection.  `mdcctl labels set` against the emulator reads
# the cluster, PATCHes it and polls the operation: one connect() to the
# emulator (strace), however many requests the emulator logged.  Without
# libcurl (MDC_LIBCURL_SONAME naming none) a direct command stops with one
# clear error, the emulator's loopback included.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v strace >/dev/null || skip_all "no strace"
strace -f -qq -e trace=connect -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here"
plan 7
emu_mdcctl_env c1
port=${EMU_URL##*:}
: >"$EMU_LOG"

# connects ACTION...: run mdcctl under strace; prints the connect()s to
# the emulator's port
connects() {
	strace -f -qq -e trace=connect -o "$TEST_DIR/strace" "$top_builddir/mdcctl" "$@" \
		>"$TEST_DIR/out" 2>"$TEST_DIR/err"
	echo "rc=$?" >>"$TEST_DIR/out"
	grep -c "htons($port)" "$TEST_DIR/strace"
}
n=$(connects labels set env=reuse)
like "$(cat "$TEST_DIR/out")" "rc=0" "labels set exits 0"
is "$(M labels list | grep env=)" "env=reuse" "... and the label landed"
reqs=$(jq -r 'select(.path | startswith("/v1")) | .method' "$EMU_LOG" | sort | uniq -c | tr -s ' ' | tr '\n' ,)
like "$reqs" " [0-9]+ GET, 1 PATCH," "the command read, patched and polled (${reqs%,})"
total=$(jq -r 'select(.path | startswith("/v1")) | .method' "$EMU_LOG" | wc -l)
ok "more than two requests ($total)" test "$total" -gt 2
is "$n" 1 "all of them on one connection"

# --- without libcurl ----------------------------------------------------------
err=$(MDC_LIBCURL_SONAME=libmdc-no-such-curl.so.0 M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_INTERNAL" "no libcurl: a direct command to the loopback emulator fails"
like "$err" "libcurl, which every request to the API needs, could not be loaded .*libmdc-no-such-curl.so.0.*apt-get install libcurl4" \
	"... with one clear error"
