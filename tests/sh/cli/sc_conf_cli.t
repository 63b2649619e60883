#!/usr/bin/env bash
# sc_conf_cli.t - `mdcctl conf check|dump`: compiler-style diagnostics, the
# dump against expected files, and every kind of bad input giving exactly
# one clear error, a non-zero exit, no crash and no wait.
# (owner: slurm.conf engine)
. "$top_srcdir/tests/lib/tap.sh"
# these files test our parser and Slurm's client parse; most are not whole
# clusters (no nodes), which slurmctld's start-up rightly refuses: that
# check is tested in verdict_ctld.t and verdict_cases.t
export MDC_SLURMCTLD=

D=$TEST_DIR
DATA=$top_srcdir/tests/sc/dump
ORACLE=$top_builddir/tests/sc/sc_oracle
HDR=$'ClusterName=c1\nSlurmctldHost=ctl(127.0.0.1)'

# mk NAME: the header then stdin
mk() { { printf '%s\n' "$HDR"; cat; } > "$D/$1"; }

# check FILE: runs `mdcctl conf check`, sets RC and ERR (stderr)
check() {
	ERR=$(cd "$D" && timeout 30 mdcctl conf check "$@" 2>&1 >/dev/null); RC=$?
}

# bad NAME REGEX: exit EXIT_PARSE, one error line matching REGEX
bad() {
	local name=$1 re=$2 n
	check "$name"
	n=$(printf '%s\n' "$ERR" | grep -c 'error:')
	if [ "$RC" = "$EXIT_PARSE" ] && [ "$n" = 1 ] && printf '%s' "$ERR" | grep -Eq -- "$re"; then
		pass "bad input $name: one error, exit $EXIT_PARSE"
	else
		fail "bad input $name: one error, exit $EXIT_PARSE" "exit $RC, $n error lines" "$ERR" "expected /$re/"
	fi
}

# --- dump and check of a good file -----------------------------------------
cp "$DATA/main.conf" "$DATA/alpha-parts.conf" "$D/"
(cd "$D" && mdcctl conf dump main.conf > dump.txt 2> dump.err); is "$?" 0 "conf dump exits 0"
files_eq "conf dump text output" "$D/dump.txt" "$DATA/dump.txt"
is "$(cat "$D/dump.err")" 'main.conf:10:1: warning: "MailDomain" set again (first at main.conf:4): the last value is used' \
	"repeated key: one warning naming both lines"
(cd "$D" && mdcctl conf dump --format json main.conf > dump.json 2>/dev/null)
files_eq "conf dump --format json output" "$D/dump.json" "$DATA/dump.json"
check main.conf
is "$RC" 0 "conf check of a good file exits 0"

# --- bad inputs --------------------------------------------------------------
printf 'MailDomain=a \\\n' | mk cont_eof.conf
bad cont_eof.conf '^cont_eof.conf:3:[0-9]+: error: the last line ends with a continuation backslash$'
{ printf 'MailDomain='; head -c 1048576 /dev/zero | tr '\0' x; echo; } | mk long.conf
bad long.conf '^long.conf:3:1: error: line longer than'
printf 'MailDomain=a\0b\n' | mk nul.conf
bad nul.conf '^nul.conf:3:13: error: NUL byte'
head -c 8192 "$top_builddir/mdcctl" > "$D/junk.conf"
bad junk.conf '^junk.conf:1:[0-9]+: error: (NUL byte|invalid UTF-8)'
printf 'Include b.conf\n' | mk a.conf
printf 'MailDomain=x\nInclude a.conf\n' > "$D/b.conf"
bad a.conf '^b.conf:2:9: error: include loop'
printf 'Include nothere.conf\n' | mk missing.conf
bad missing.conf '^missing.conf:3:9: error: cannot read included file "nothere.conf"'
printf 'Include *.conf\n' | mk glob.conf
bad glob.conf 'wildcards are not supported'
printf 'PriorityWeightAg=1\n' | mk typo.conf
bad typo.conf '^typo.conf:3:1: error: unknown key "PriorityWeightAg" in slurm.conf \(did you mean "PriorityWeightAge"\?\)$'
printf 'PartitionName=p Nodes=ALL Weight=3\n' | mk record.conf
bad record.conf '^record.conf:3:27: error: key "Weight" is not allowed on a PartitionName line$'
printf 'PartitionName=p MaxTime=abc\n' | mk maxtime.conf
bad maxtime.conf '^maxtime.conf:3:25: error: bad value "abc" for "MaxTime"'
printf 'MailDomain=\xc3\x28\n' | mk utf8.conf
bad utf8.conf '^utf8.conf:3:12: error: invalid UTF-8'
{ printf '%s\n' "$HDR"; for ((i = 0; i < 100000; i++)); do echo "NodeName=n$i CPUs=2"; done; } > "$D/many.conf"
check many.conf
is "$RC" 0 "10^5 valid lines parse"
printf 'Bogus=1\n' >> "$D/many.conf"
bad many.conf '^many.conf:100003:1: error: unknown key "Bogus"'

# --- odd input Slurm accepts: accepted with a warning ------------------------
printf 'MailDomain=x.org\r\nPartitionName=p State=UP\r\n' | mk crlf.conf
check crlf.conf
is "$RC" 0 "CRLF line ends: accepted"
like "$ERR" '^crlf.conf:3:[0-9]+: warning: CRLF line ends' "CRLF line ends: a warning"
printf 'PartitionName=p AllowGroups="wheel\n' | mk quote.conf
check quote.conf
is "$RC" 0 "unterminated quote: accepted"
like "$ERR" '^quote.conf:3:29: warning: unterminated quote' "unterminated quote: a warning"

# --- Slurm's own verdict on the same files (its parser, libslurmfull) -------
if [ -x "$ORACLE" ] && "$ORACLE" --verdict "$D/crlf.conf" >/dev/null 2>&1; then
	for f in crlf quote; do
		is "$("$ORACLE" --verdict "$D/$f.conf" 2>/dev/null)" ACCEPTED "Slurm also accepts $f.conf"
	done
	for f in typo record maxtime; do
		is "$("$ORACLE" --verdict "$D/$f.conf" 2>/dev/null)" REJECTED "Slurm also rejects $f.conf"
	done
else
	for f in crlf quote typo record maxtime; do skip "Slurm's verdict on $f.conf" "no libslurmfull oracle"; done
fi

# --- usage and several files ---------------------------------------------------
check main.conf maxtime.conf crlf.conf
is "$RC" "$EXIT_PARSE" "check of several files: exit $EXIT_PARSE when one has an error"
is "$(printf '%s\n' "$ERR" | grep -c 'error:')" 1 "check of several files: only the bad one errs"
out=$(cd "$D" && mdcctl conf check --format json main.conf maxtime.conf 2>/dev/null)
like "$out" '"ok": false' "check --format json reports the failure"
like "$out" '"message": "bad value \\"abc\\" for \\"MaxTime\\"' "check --format json carries the message"
out=$(mdcctl conf bogus 2>&1); RC=$?
is "$RC" "$EXIT_USAGE" "unknown subcommand: usage error"
out=$(mdcctl conf --lenient check typo.conf 2>&1); RC=$?
like "$RC:$out" "^$EXIT_USAGE:mdcctl: error: conf: '--lenient' goes after the subcommand: mdcctl conf check --lenient FILE" \
	"an option before the subcommand: says where it goes"
check --lenient typo.conf
is "$RC" 0 "--lenient: unknown key is a warning"
like "$ERR" 'warning: unknown key "PriorityWeightAg"' "--lenient still reports it"

done_testing
