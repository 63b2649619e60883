#!/usr/bin/env bash
# One option-parsing style across mdcctl's commands (mdcctl_getopt): for
# conf check, jobs, jobs enforce and the persistent-resources and
# pipelines subcommands, an unknown option and an option without its
# value are usage errors naming the command path and the option, with
# nothing on stdout and nothing sent to the emulator; --help and -h print
# the usage on stdout and exit 0; options may follow operands; "--" ends
# the options.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq not installed"
emu_pr_env
# jobs must refuse its options before it looks for a slurmctld
export SLURM_CONF=$TEST_DIR/no-slurm.conf
show_on_fail "$TEST_DIR/err"

plan 118

m() { "$top_builddir/mdcctl" --endpoint "$EMU_URL" "$@"; }
requests() { wc -l <"$EMU_LOG" | tr -d ' '; }

# a first request, so that the log exists and "nothing sent" means something
m persistent-resources list "${G[@]}" >/dev/null 2>"$TEST_DIR/err"
is "$?" "$EXIT_OK" "persistent-resources list against the emulator"
before=$(requests)
ok "the emulator logged it" test "$before" -gt 0

# usage_error DESC WANT ARGS...: EXIT_USAGE, WANT on stderr, stdout empty
usage_error() {
	local desc=$1 want=$2 out rc; shift 2
	out=$(m "$@" 2>"$TEST_DIR/err"); rc=$?
	is "$rc" "$EXIT_USAGE" "$desc: exits $EXIT_USAGE"
	like "$(cat "$TEST_DIR/err")" "$want" "$desc: says so"
	is "$out" "" "$desc: nothing on stdout"
}

# --- unknown options (data: DESC | WANT | ARGS) -------------------------------
while IFS='|' read -r desc want args; do
	[ -n "$desc" ] || continue
	# shellcheck disable=SC2086 # ARGS are words
	usage_error "$desc" "$want" $args
done <<'EOF'
conf check --bogus|mdcctl: error: conf check: unknown option '--bogus'$|conf check --bogus /dev/null
conf check -x|conf check: unknown option '-x'$|conf check -x /dev/null
conf check --lenient=1|conf check: option '--lenient' takes no value$|conf check --lenient=1 /dev/null
jobs --bogus|mdcctl: error: jobs: unknown option '--bogus'$|jobs --bogus
jobs list --bogus|jobs list: unknown option '--bogus'$|jobs list --bogus
jobs list --interval|jobs list: unknown option '--interval'$|jobs list --interval 5
jobs enforce --bogus|mdcctl: error: jobs enforce: unknown option '--bogus'$|jobs enforce --bogus
jobs enforce --once=1|jobs enforce: option '--once' takes no value$|jobs enforce --once=1
persistent-resources create --bogus|mdcctl: error: persistent-resources create: unknown option '--bogus'$|persistent-resources create --persistent-resource-id=x --bogus
persistent-resources list -x|persistent-resources list: unknown option '-x'$|persistent-resources list -x
persistent-resources describe --bogus|persistent-resources describe: unknown option '--bogus'$|persistent-resources describe x --bogus
pipelines run --bogus|mdcctl: error: pipelines run: unknown option '--bogus'$|pipelines run --bogus
pipelines list --bogus|pipelines list: unknown option '--bogus'$|pipelines list --bogus
pipelines describe -q|pipelines describe: unknown option '-q'$|pipelines describe x -q
conf check --len (an abbreviation)|conf check: unknown option '--len' \(did you mean '--lenient'\?\)$|conf check --len /dev/null
jobs enforce --on (an abbreviation)|jobs enforce: unknown option '--on' \(did you mean '--once'\?\)$|jobs enforce --on
jobs enforce --int 5 (an abbreviation with a value)|jobs enforce: unknown option '--int' \(did you mean '--interval'\?\)$|jobs enforce --int 5
jobs enforce --int=5 (an abbreviation with =)|jobs enforce: unknown option '--int' \(did you mean '--interval'\?\)$|jobs enforce --int=5
EOF

# --- options without their value -------------------------------------------------
while IFS='|' read -r desc want args; do
	[ -n "$desc" ] || continue
	# shellcheck disable=SC2086
	usage_error "$desc" "$want" $args
done <<'EOF'
conf check --format|option '--format' needs a value|conf check /dev/null --format
jobs enforce --interval|mdcctl: error: jobs enforce: --interval needs a value$|jobs enforce --interval
persistent-resources create --display-name|persistent-resources create: --display-name needs a value$|persistent-resources create --persistent-resource-id=x --display-name
persistent-resources list --page-size|persistent-resources list: --page-size needs a value$|persistent-resources list --page-size
pipelines run --pipeline|pipelines run: --pipeline needs a value$|pipelines run --pipeline
pipelines list --filter|pipelines list: --filter needs a value$|pipelines list --filter
EOF

# operands where none are taken, and the checks that stay as they were
usage_error "jobs enforce with an operand" "jobs enforce: unexpected argument 'now'" jobs enforce now --once
usage_error "jobs enforce --interval soon" "interval" jobs enforce --interval soon
usage_error "pipelines list with an operand" "pipelines list: unexpected argument 'x'" pipelines list x
usage_error "persistent-resources describe without its operand" \
	"persistent-resources describe: give one persistent resource" persistent-resources describe

is "$(requests)" "$before" "no usage error sent anything to the emulator"

# --- --help and -h: the subcommand's own usage (data: ARGS | its first line) --------
while IFS='|' read -r c want; do
	[ -n "$c" ] || continue
	# shellcheck disable=SC2086
	out=$(m $c --help 2>"$TEST_DIR/err"); rc=$?
	if [ "$rc" = "$EXIT_OK" ] && [ "${out%%$'\n'*}" = "usage: mdcctl $want" ]; then
		pass "mdcctl $c --help: its usage on stdout, exit $EXIT_OK"
	else
		fail "mdcctl $c --help: its usage on stdout, exit $EXIT_OK" "rc $rc" "$out" \
			"$(cat "$TEST_DIR/err")"
	fi
	# shellcheck disable=SC2086
	is "$(m $c -h 2>/dev/null; echo "rc $?")" "$out"$'\n'"rc $EXIT_OK" "mdcctl $c -h: the same"
done <<'EOF'
conf|conf check [--lenient] [--template] FILE...
conf check|conf check [--lenient] [--template] FILE...
conf dump|conf dump [--lenient] [--template] FILE [--format json]
jobs|jobs [list]
jobs list|jobs [list]
jobs enforce|jobs enforce [--once] [--interval SECONDS]
persistent-resources create|persistent-resources create --persistent-resource-id=ID
persistent-resources list x|persistent-resources list [--project=P] [--region=L] [--page-size=N] [--format=text|json]
pipelines run|pipelines run --pipeline=COMPILED.yaml --persistent-resource=ID|NAME
pipelines describe|pipelines describe JOB_ID|NAME [--project=P] [--region=L] [--format=text|json]
EOF
like "$(m jobs --help)" "or: mdcctl jobs enforce " "jobs --help names both forms"
unlike "$(m jobs enforce --help)" "jobs \\[list\\]" "jobs enforce --help only its own"
is "$(requests)" "$before" "--help sent nothing to the emulator"

# --- options after operands, and "--" -------------------------------------------
printf 'ClusterName=c1\nSlurmctldHost=ctl(127.0.0.1)\nPriorityWeightAg=1\n' >"$TEST_DIR/typo.conf"
m conf check "$TEST_DIR/typo.conf" >/dev/null 2>&1
is "$?" "$EXIT_PARSE" "conf check of a file with an unknown key: a parse error"
m conf check "$TEST_DIR/typo.conf" --lenient >/dev/null 2>&1
is "$?" "$EXIT_OK" "conf check FILE --lenient: the option after the file counts"
out=$(m conf check -- --lenient 2>&1); rc=$?
is "$rc" "$EXIT_IO" "conf check -- --lenient: a file named --lenient, which cannot be read"
like "$out" "^--lenient: error: " "conf check -- --lenient names the file"
out=$(m persistent-resources describe "${G[@]}" --format json -- no-such-pr 2>&1); rc=$?
like "$out" "no-such-pr" "persistent-resources describe -- ID: the operand after --"
is "$rc" "$EXIT_NOTFOUND" "persistent-resources describe -- ID: asked for, not found"
out=$(m persistent-resources list --page-size 0 "${G[@]}" 2>&1); rc=$?
is "$rc" "$EXIT_USAGE" "persistent-resources list --page-size 0 is still checked"
like "$out" "page-size '0'" "persistent-resources list --page-size 0 says why"
