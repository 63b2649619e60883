#!/usr/bin/env bash
# verdict_cases.t - `mdcctl conf check` and Slurm's own parser agree on a
# table of semantic cases (tests/conf-cases/cases.tsv): each case appended
# to base.conf is judged by sc_oracle (linked against libslurmfull, not
# our dlopen path) and by mdcctl; both must give the table's verdict and
# the message must carry the table's words.  Then: the verdict without
# libslurmfull says Slurm's check was skipped, and a missing Include never
# makes Slurm wait its 60 s.  (owner: verdict)
. "$top_srcdir/tests/lib/tap.sh"

DATA=$top_srcdir/tests/conf-cases
ORACLE=$top_builddir/tests/sc/sc_oracle
D=$TEST_DIR

oracle=1
"$ORACLE" --verdict "$DATA/base.conf" >/dev/null 2>&1 || oracle=0
[ "$oracle" = 1 ] || diag "no libslurmfull oracle: Slurm's column is skipped"

n=0
while IFS=$'\t' read -r want words ours lines; do
	case "$want" in ''|'#'*) continue ;; esac
	[ "$ours" = "=" ] && ours=$words
	n=$((n + 1))
	f=$D/case$n.conf
	{ cat "$DATA/base.conf"; printf '%b\n' "$lines"; } > "$f"
	name="case $n ($(printf '%b' "$lines" | tr '\n' ' '))"

	# Slurm's verdict: exit 0 accepted, anything else (REJECTED, fatal) refused
	if [ "$oracle" = 1 ]; then
		sout=$(timeout 20 "$ORACLE" --verdict "$f" 2>&1 </dev/null); src=$?
		case "$want" in
		error)
			if [ "$src" != 0 ] && printf '%s' "$sout" | grep -qF -- "$words"; then
				pass "$name: Slurm refuses it"
			else
				fail "$name: Slurm refuses it" "exit $src" "$sout" "expected words: $words"
			fi ;;
		*) is "$src" 0 "$name: Slurm's parser accepts it" ;;
		esac
	else
		skip "$name: Slurm's verdict" "no oracle"
	fi

	# ours, with Slurm's check inside (stdin kept from the table)
	out=$(timeout 30 mdcctl conf check "$f" 2>&1 </dev/null); rc=$?
	case "$want" in
	ok)
		if [ "$rc" = 0 ] && ! printf '%s' "$out" | grep -q 'error:\|warning:'; then
			pass "$name: conf check accepts it"
		else
			fail "$name: conf check accepts it" "exit $rc" "$out"
		fi ;;
	warn)
		if [ "$rc" = 0 ] && printf '%s' "$out" | grep 'warning:' | grep -qF -- "$ours"; then
			pass "$name: conf check accepts it with a warning"
		else
			fail "$name: conf check accepts it with a warning" "exit $rc" "$out" "expected: $ours"
		fi ;;
	error|ctld)
		if [ "$rc" = "$EXIT_PARSE" ] && printf '%s' "$out" | grep 'error:' | grep -qF -- "$ours"; then
			pass "$name: conf check refuses it, saying why"
		else
			fail "$name: conf check refuses it, saying why" "exit $rc" "$out" "expected: $ours"
		fi ;;
	*) fail "$name: unknown verdict '$want' in cases.tsv" ;;
	esac
done < "$DATA/cases.tsv"
ok "at least 40 cases in the table ($n)" test "$n" -ge 40

# files slurmctld reads beside slurm.conf come into its sandbox:
# TopologyPlugin=topology/tree with a topology.conf next to the checked
# file is judged by slurmctld (without the file it waits for it, and the
# check was skipped after 15 s on every change), and without one the
# verdict names the file slurmctld waits for
mkdir -p "$D/topo"
{ cat "$DATA/base.conf"; echo TopologyPlugin=topology/tree; } >"$D/topo/slurm.conf"
printf 'SwitchName=s0 Nodes=cpu-[0-1]\n' >"$D/topo/topology.conf"
out=$(timeout 30 mdcctl conf check "$D/topo/slurm.conf" 2>&1); rc=$?
is "$rc" 0 "topology/tree with its topology.conf beside the file: accepted"
like "$out" "slurmctld's start-up \(" "... by slurmctld's start-up, which read that topology.conf"
rm "$D/topo/topology.conf"
out=$(timeout 30 mdcctl conf check "$D/topo/slurm.conf" 2>&1)
like "$out" "slurmctld's start-up was skipped: slurmctld did not start in [0-9]+ s: it waits for topology.conf" \
	"without it, the verdict names the file slurmctld waits for"

# which checks ran
out=$(mdcctl conf check "$DATA/base.conf" 2>&1)
if [ "$oracle" = 1 ]; then
	like "$out" "base.conf: ok; checks: ours, Slurm's \(.*libslurmfull.so\)" "conf check says both checks ran"
else
	skip "conf check says both checks ran" "no libslurmfull"
fi
out=$(MDC_LIBSLURMFULL= mdcctl conf check "$D/case8.conf" 2>&1); rc=$?
is "$rc" "$EXIT_PARSE" "without libslurmfull: our checks still refuse PreemptMode=REQUEUE alone"
like "$out" "refused; checks: ours; Slurm's check was skipped: turned off \(MDC_LIBSLURMFULL is empty\)" \
	"without libslurmfull: the verdict says Slurm's check was skipped, and why"
out=$(MDC_LIBSLURMFULL=/nonexistent/libslurmfull.so mdcctl conf check "$DATA/base.conf" 2>&1)
like "$out" "ok; checks: ours; Slurm's check was skipped: MDC_LIBSLURMFULL names no readable library" \
	"a missing library is a skipped check, not an error"

# JSON carries the verdict
out=$(mdcctl --format json conf check "$D/case8.conf" 2>/dev/null)
like "$out" '"ok": false' "conf check --format json: refused"
like "$out" 'PreemptType and PreemptMode values incompatible' "conf check --format json: Slurm's words"

# an Include that does not exist: reported, never Slurm's 60 s wait
{ cat "$DATA/base.conf"; echo 'Include nothere.conf'; } > "$D/inc.conf"
start=$SECONDS
out=$(timeout 50 mdcctl conf check --lenient "$D/inc.conf" 2>&1); rc=$?
ok "missing Include: conf check returns well before Slurm's 60 s retry ($((SECONDS - start)) s)" \
	test $((SECONDS - start)) -lt 20
is "$rc" 0 "missing Include with --lenient: a warning"
# an existing relative Include is read by Slurm's check too
printf 'PreemptMode=BOGUS\n' > "$D/extra.conf"
{ cat "$DATA/base.conf"; echo 'Include extra.conf'; } > "$D/inc2.conf"
out=$(cd / && timeout 30 mdcctl conf check "$D/inc2.conf" 2>&1); rc=$?
is "$rc" "$EXIT_PARSE" "a bad value in an included file: refused"
if [ "$oracle" = 1 ]; then
	like "$out" "Slurm: PreemptMode=BOGUS invalid" "Slurm's check read the relative Include"
else
	skip "Slurm's check read the relative Include" "no libslurmfull"
fi

done_testing
