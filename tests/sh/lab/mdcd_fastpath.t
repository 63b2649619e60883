#!/usr/bin/env bash
# With a broker configured, mdcctl and mdc-scontrol talk only
# to mdcd's socket and never load libcurl (LD_DEBUG=libs names every
# library the process opens; MDC_LIBCURL_SONAME naming none leaves the
# broker path working), and mdcd keeps its API connection warm between
# requests: after several brokered requests one connection from mdcd to
# the emulator stays open (ss), the same one.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

for c in jq ss; do
	command -v "$c" >/dev/null || skip_all "$c is not installed"
done
[ -x "$top_builddir/mdcd" ] || skip_all "mdcd is not built (configure found no libmunge, or --without-munge)"
lab_up --managed --broker --lro-seconds 0
plan 11

export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_TOKEN_FILE MDC_ACCESS_TOKEN MDC_METADATA_URL
nocurl=libmdc-no-such-curl.so.0
mdcd_pid=$(cat "$LAB_DIR/run/mdcd.pid")
emu_port=${MDC_ENDPOINT##*:}
show_on_fail "$LAB_DIR/log/mdcd.log"

out=$(LD_DEBUG=libs "$top_builddir/mdcctl" describe 2>"$TEST_DIR/ld"); rc=$?
is "$rc" 0 "mdcctl describe through the broker"
like "$out" "modelDevelopmentClusters/" "... describes the cluster"
is "$(grep -c libcurl "$TEST_DIR/ld")" 0 "... and the process never opens libcurl"
# the control: the same command straight to the API opens it
MDC_BROKER= LD_DEBUG=libs "$top_builddir/mdcctl" describe >/dev/null 2>"$TEST_DIR/ld"
ok "... which the direct path does (LD_DEBUG=libs sees it)" grep -q "calling init: .*libcurl" "$TEST_DIR/ld"

out=$(MDC_LIBCURL_SONAME=$nocurl "$top_builddir/mdcctl" describe 2>&1); rc=$?
is "$rc" 0 "with no libcurl to load, the broker path still works"
out=$(MDC_LIBCURL_SONAME=$nocurl LD_DEBUG=libs "$top_builddir/mdc-scontrol" update \
	partitionname=debug MaxTime=77 2>"$TEST_DIR/ld"); rc=$?
is "$rc" 0 "mdc-scontrol update through the broker, no libcurl to load"
is "$(grep -c libcurl "$TEST_DIR/ld")" 0 "... and it never opens libcurl"
shown() { scontrol show partition debug --oneliner | grep -q ' MaxTime=01:17:00 '; }
ok "... and slurmctld shows the change" wait_until 30 shown

# --- mdcd's API connection stays open between requests
# conns: mdcd's established connections to the emulator ("local-port" each)
conns() {
	ss -tnpH state established "( dport = :$emu_port )" 2>/dev/null |
		awk -v p="pid=$mdcd_pid," 'index($0, p) { n = split($3, a, ":"); print a[n] }' | sort
}
for _ in 1 2 3; do "$top_builddir/mdcctl" describe >/dev/null || fail "describe"; done
first=$(conns)
is "$(grep -c . <<<"$first")" 1 "after sequential requests mdcd holds one connection to the API"
for _ in 1 2 3; do "$top_builddir/mdcctl" describe >/dev/null || fail "describe"; done
is "$(conns)" "$first" "... the same one, reused by the next requests"
"$top_builddir/mdcctl" labels set fast=path >/dev/null || fail "labels set"
is "$(conns)" "$first" "... and by a write and its polls"
