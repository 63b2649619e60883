# tap.sh - sourced by every shell test (tests/sh/*/*.t).  Speaks TAP to the
# automake driver; each test owns a temporary directory (removed at exit
# unless MDC_KEEP=1) and registers cleanup commands that run even on failure.
#
#   . "$top_srcdir/tests/lib/tap.sh"
#   plan 3
#   ok "description" command args...      # passes if the command exits 0
#   is "$got" "$want" "description"
#   like "$got" "regex" "description"
#   skip_all "reason"                      # whole test skipped (counted as SKIP)
#   at_exit 'command'                      # cleanup, run in reverse order
#   is "$rc" "$EXIT_USAGE" "description"   # exit codes by name (see below)

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
export PATH="$top_builddir:$top_srcdir/scripts:$PATH"
export LC_ALL=C

# EXIT_OK, EXIT_USAGE, EXIT_INVAL, ...: the exit code of each enum mdc_err,
# read from the library's own table (lib/base/mdc_err.c), so a test checks
# a tool's exit status against that table rather than a bare number.
eval "$(sed -n 's/^[[:space:]]*\[MDC_\(ERR_\)\{0,1\}\([A-Z]*\)\][[:space:]]*= { "[^"]*", \([0-9]*\) },.*/EXIT_\2=\3/p' \
	"$top_srcdir/lib/base/mdc_err.c")"
[ -n "${EXIT_USAGE:-}" ] || { echo "Bail out! no exit code table in lib/base/mdc_err.c"; exit 1; }

TAP_N=0
TAP_FAILED=0
TAP_PLANNED=
TAP_EXIT_CMDS=()
TEST_NAME=$(basename "$0" .t)
TEST_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mdc-$TEST_NAME.XXXXXX")
export TEST_DIR

at_exit() { TAP_EXIT_CMDS+=("$1"); }

TAP_PID=$BASHPID
tap_cleanup() {
	local rc=$? i
	# a subshell that inherited the trap (a pipeline's side, `&`) is not the
	# test: it must neither run the clean-up nor judge the plan
	[ "$BASHPID" = "$TAP_PID" ] || return 0
	for ((i = ${#TAP_EXIT_CMDS[@]} - 1; i >= 0; i--)); do
		eval "${TAP_EXIT_CMDS[$i]}" >/dev/null 2>&1 || true
	done
	if [ -n "$TAP_PLANNED" ] && [ "$TAP_PLANNED" != "$TAP_N" ]; then
		echo "# planned $TAP_PLANNED tests but ran $TAP_N"
		rc=1
	fi
	[ "$TAP_FAILED" -gt 0 ] && rc=1
	if [ "${MDC_KEEP:-0}" = 1 ] || [ "$rc" != 0 ]; then
		echo "# test directory kept: $TEST_DIR"
	else
		rm -rf "$TEST_DIR"
	fi
	exit "$rc"
}
trap tap_cleanup EXIT
trap 'exit 130' INT TERM

plan() { TAP_PLANNED=$1; echo "1..$1"; }
# done_testing: for tests whose count depends on the data
done_testing() { TAP_PLANNED=$TAP_N; echo "1..$TAP_N"; }

diag() { printf '%s\n' "$@" | sed 's/^/# /'; }

pass() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1"; }
fail() {
	TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
	shift
	[ $# -gt 0 ] && diag "$@"
	# a failure shows the daemons' logs: tests register them with show_on_fail
	local f
	for f in "${TAP_FAIL_LOGS[@]-}"; do
		[ -n "$f" ] && [ -r "$f" ] && { diag "--- tail of $f"; tail -n 30 "$f" | sed 's/^/# /'; }
	done
	return 0
}
TAP_FAIL_LOGS=()
show_on_fail() { TAP_FAIL_LOGS+=("$@"); }

skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP ${2:-}"; }
skip_all() { echo "1..0 # SKIP $1"; TAP_PLANNED=; exit 0; }

# ok DESCRIPTION CMD...: the command must exit 0 (its output goes to the log)
ok() {
	local desc=$1 out rc; shift
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" = 0 ]; then pass "$desc"; else fail "$desc" "command: $*" "exit: $rc" "$out"; fi
}
# nok DESCRIPTION CMD...: the command must exit non-zero
nok() {
	local desc=$1 out rc; shift
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" != 0 ]; then pass "$desc"; else fail "$desc" "command succeeded: $*" "$out"; fi
}
is() {
	if [ "$1" = "$2" ]; then pass "$3"; else fail "$3" "got:      '$1'" "expected: '$2'"; fi
}
isnt() {
	if [ "$1" != "$2" ]; then pass "$3"; else fail "$3" "got the unexpected: '$1'"; fi
}
# like/unlike use grep -E line semantics (^ and $ anchor lines).  A pattern
# holding a newline would be several patterns to grep, one of them empty
# (matching anything), so it is a test bug and fails loudly.
tap_pattern_ok() {
	case "$1" in *$'\n'*) fail "$2" "pattern contains a newline: /$1/ (match one line at a time)"; return 1 ;; esac
	[ -n "$1" ] || { fail "$2" "empty pattern matches anything"; return 1; }
}
like() {
	tap_pattern_ok "$2" "$3" || return 0
	if printf '%s' "$1" | grep -Eq -- "$2"; then pass "$3"; else fail "$3" "got:      '$1'" "expected to match: /$2/"; fi
}
unlike() {
	tap_pattern_ok "$2" "$3" || return 0
	if ! printf '%s' "$1" | grep -Eq -- "$2"; then pass "$3"; else fail "$3" "got:      '$1'" "expected not to match: /$2/"; fi
}
# files_eq DESCRIPTION GOT_FILE WANT_FILE: shows a diff on mismatch
files_eq() {
	local d
	if d=$(diff -u "$3" "$2" 2>&1); then pass "$1"; else fail "$1" "$d"; fi
}

# free_port: an unused TCP port on 127.0.0.1 (the kernel picks it)
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
		echo $((20000 + RANDOM % 20000))
}

# wait_until SECONDS CMD...: poll every 0.1 s.  CMD is re-run each time, but
# its arguments are expanded once: poll a function, not test "$(cmd)" = x.
wait_until() {
	local t=$1 i; shift
	for ((i = 0; i < t * 10; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
	return 1
}

# need_root: Slurm labs need root (munge, slurmd)
need_root() { [ "$(id -u)" = 0 ] || skip_all "needs root"; }
