#!/usr/bin/env bash
# The command layer: every command of `mdcctl --help`, and every
# subcommand its usage names, answers --help with its usage on stdout and
# exit 0, with no cluster, no endpoint and no config file; usage errors
# (unknown option, command or subcommand, missing arguments, an option the
# command does not take) exit with the usage code of lib/base/mdc_err.c's table (tap.sh's EXIT_*).
. "$top_srcdir/tests/lib/tap.sh"

M=$top_builddir/mdcctl
export MDC_CONF=/dev/null
unset MDC_CLUSTER MDC_ENDPOINT MDC_PROJECT MDC_REGION
# the usage code as the library's table has it, not as this test guesses it
usage_rc=$EXIT_USAGE

cmds=$("$M" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
# subcommands: the first word of each form of the usage ("list|show ID|..."),
# or the "Commands:" line of a command with its own help
subs_of() {
	local c=$1 text
	text=$("$M" "$c" --help 2>/dev/null)
	{
		printf '%s\n' "$text" | sed -n 's/^Commands: //p' | tr ' ' '\n'
		printf '%s\n' "$text" | grep -E '^(usage: |   or: |       .*\|)' |
			sed "s/^\(usage: \|   or: \|       \)\(mdcctl \(--cluster NAME \)\?$c \)\?//" |
			tr '|' '\n' | awk '{ print $1 }'
	} | grep -E '^[a-z][a-z-]*$' | sort -u
}

n=0
for c in $cmds; do
	n=$((n + 1))
	for s in $(subs_of "$c"); do n=$((n + 1)); done
done
plan $((2 * n + 14))

for c in $cmds; do
	out=$("$M" "$c" --help 2>"$TEST_DIR/err"); rc=$?
	is "$rc" 0 "mdcctl $c --help exits 0"
	like "$out" "^usage: mdcctl " "mdcctl $c --help prints its usage on stdout"
	for s in $(subs_of "$c"); do
		out=$("$M" "$c" "$s" --help 2>"$TEST_DIR/err"); rc=$?
		if [ "$rc" = 0 ] && [[ "$out" == *usage:* ]]; then
			ok "mdcctl $c $s --help exits 0 with its usage" true
		else
			ok "mdcctl $c $s --help exits 0 with its usage (rc $rc: $out $(cat "$TEST_DIR/err"))" false
		fi
		# -h is the same
		out=$("$M" "$c" "$s" -h 2>/dev/null); rc=$?
		if [ "$rc" = 0 ] && [[ "$out" == *usage:* ]]; then
			ok "mdcctl $c $s -h too" true
		else
			ok "mdcctl $c $s -h too (rc $rc)" false
		fi
	done
done

# usage errors: one line on stderr, the table's code, nothing on stdout
usage_error() {
	local name=$1 want=$2; shift 2
	local out rc
	out=$("$M" "$@" 2>"$TEST_DIR/err"); rc=$?
	is "$rc" "$usage_rc" "$name exits $usage_rc"
	like "$(cat "$TEST_DIR/err")" "$want" "$name says why"
}
usage_error "an unknown global option" "unknown option '--bogus'" --bogus describe
usage_error "an unknown command" "unknown command 'frobnicate'" frobnicate
usage_error "an unknown subcommand" "usage: mdcctl partition" \
	--cluster projects/p/locations/r/modelDevelopmentClusters/c partition frobnicate
usage_error "a command option given to another command" "unknown option '--node-pools'" \
	--cluster projects/p/locations/r/modelDevelopmentClusters/c nodepool scale cpu --node-pools a
usage_error "an update option on a read-only command" "describe: option '--no-wait' is for commands that write" \
	--cluster projects/p/locations/r/modelDevelopmentClusters/c describe --no-wait
usage_error "a command that needs a cluster, without one" "cluster" labels list
usage_error "update without --update-mask" "update needs FILE and --update-mask" \
	--cluster projects/p/locations/r/modelDevelopmentClusters/c update /dev/null
