#!/usr/bin/env bash
# verdict_cases_release.t - Slurm's verdict on another release: the cases of
# tests/conf-cases/cases-REL.tsv,
# each appended to base.conf, are judged by that release's `mdcctl conf
# check` (the project's build for REL, run in its root by
# scripts/release-root, as tests/lib/lab.sh does under MDC_LAB_RELEASE),
# whose last check starts REL's own slurmctld in its sandbox.  A ctld or
# error row must be refused with its words (a "slurmctld: fatal:" line
# only after that slurmctld's start-up ran), an ok row accepted with the
# start-up run (not skipped).  24.11's
# slurmctld stops at start when no munged answers, so the test runs a
# munged of its own and the file names its socket (AuthInfo).  Releases:
# MDC_RELEASES but 22.05 (default 24.11; 22.05's cases are
# verdict_cases.t's); one without its root, build or cases file is
# skipped (counted).  (owner: verdict)
. "$top_srcdir/tests/lib/tap.sh"

DATA=$top_srcdir/tests/conf-cases
RR=$top_srcdir/scripts/release-root
D=$TEST_DIR
RELS=()
for r in ${MDC_RELEASES:-22.05 24.11}; do
	[ "$r" = 22.05 ] || RELS+=("$r")
done
[ ${#RELS[@]} -gt 0 ] || skip_all "no release but 22.05 in MDC_RELEASES"
[ "$(id -u)" = 0 ] || skip_all "a release root needs root"
command -v munged >/dev/null || skip_all "munged is not installed (scripts/install-deps)"

# the cases of each release, counted for the plan
ncases() { grep -cv '^#\|^$' "$DATA/cases-$1.tsv" 2>/dev/null || echo 0; }
total=0
for r in "${RELS[@]}"; do
	n=$(ncases "$r")
	total=$((total + 1 + n))
done
plan "$total"

# a munged of the test's own (--force: the test's 0700 directory)
dd if=/dev/urandom of="$D/munge.key" bs=1024 count=1 status=none && chmod 600 "$D/munge.key"
munged --force --socket="$D/munge.sock" --key-file="$D/munge.key" --pid-file="$D/munged.pid" \
	--log-file="$D/munged.log" --seed-file="$D/munged.seed" ||
	{ echo "Bail out! munged did not start: $(tail -3 "$D/munged.log" 2>/dev/null)"; exit 1; }
at_exit 'kill "$(cat "$D/munged.pid" 2>/dev/null)" 2>/dev/null'
export MDC_CONF=$D/mdc.conf	# no config file of the machine's
: >"$MDC_CONF"

for r in "${RELS[@]}"; do
	n=$(ncases "$r")
	build=$("$RR" builddir "$r" "$top_srcdir" 2>/dev/null)
	if [ "$n" = 0 ] || [ -z "$build" ] || [ ! -x "$build/mdcctl" ]; then
		why="no tests/conf-cases/cases-$r.tsv"
		[ "$n" = 0 ] || why="no slurm-mdc build for Slurm $r (scripts/release-root build $r $top_srcdir)"
		skip "Slurm $r: the cases" "$why"
		for ((i = 0; i < n; i++)); do skip "Slurm $r: case $((i + 1))" "$why"; done
		continue
	fi
	# that release's mdcctl, in its root, with its sandbox helper
	w=$D/mdcctl-$r
	printf '#!/bin/sh\nMDC_RELEASE_BINDS=%q; export MDC_RELEASE_BINDS\nMDC_SLURMCHECK_HELPER=%q; export MDC_SLURMCHECK_HELPER\nexec %q exec %q -- %q "$@"\n' \
		"$D:$top_srcdir:$(dirname "$build")" "$build/mdc-slurmcheck" "$RR" "$r" "$build/mdcctl" >"$w"
	chmod +x "$w"
	{ cat "$DATA/base.conf"; printf 'AuthInfo=socket=%s\n' "$D/munge.sock"; } >"$D/base-$r.conf"
	out=$("$w" conf check "$D/base-$r.conf" 2>&1); rc=$?
	if [ "$rc" = 0 ] && [[ $out == "judged against Slurm $r "* ]] && [[ $out == *"slurmctld's start-up ("* ]]; then
		pass "Slurm $r: base.conf is judged against $r and accepted by its parser and its slurmctld's start-up"
	else
		fail "Slurm $r: base.conf is judged against $r and accepted by its parser and its slurmctld's start-up" \
			"exit $rc" "$out"
	fi

	i=0
	while IFS=$'\t' read -r want words ours lines; do
		case "$want" in ''|'#'*) continue ;; esac
		i=$((i + 1))
		f=$D/case-$r-$i.conf
		{ cat "$D/base-$r.conf"; printf '%b\n' "$lines"; } >"$f"
		name="Slurm $r: case $i ($(printf '%b' "$lines" | tr '\n' ' '))"
		out=$(timeout 60 "$w" conf check "$f" 2>&1 </dev/null); rc=$?
		case "$want" in
		ok)
			if [ "$rc" = 0 ] && [[ $out == *"slurmctld's start-up ("* ]] &&
			   ! printf '%s' "$out" | grep -q 'error:\|warning:'; then
				pass "$name: accepted, slurmctld started"
			else
				fail "$name: accepted, slurmctld started" "exit $rc" "$out"
			fi ;;
		error|ctld)
			if [ "$rc" = "$EXIT_PARSE" ] && printf '%s' "$out" | grep 'error:' | grep -qF -- "$ours" &&
			   { [[ $ours != "slurmctld: fatal:"* ]] || [[ $out == *"slurmctld's start-up ("* ]]; }; then
				pass "$name: refused ($want), saying why"
			else
				fail "$name: refused ($want), saying why" "exit $rc" "$out" "expected: $ours"
			fi ;;
		*) fail "$name: unknown verdict '$want' in cases-$r.tsv" ;;
		esac
	done <"$DATA/cases-$r.tsv"
done
