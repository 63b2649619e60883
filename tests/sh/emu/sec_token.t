#!/usr/bin/env bash
# An emulator that writes a slurm.conf (and runs its reload
# hooks) never runs without a token, and takes it from a file only its
# user can read (--token-file), never from argv where ps shows it.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
EMU=$top_builddir/mdc-emulator
[ -x "$EMU" ] || skip_all "mdc-emulator is not built"
plan 13

# start_fails DESC REGEX ARGS...: the emulator exits non-zero at once
start_fails() {
	local desc=$1 re=$2 err rc
	shift 2
	err=$(timeout 10 "$EMU" --listen 127.0.0.1:0 "$@" 2>&1 >/dev/null </dev/null); rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 124 ] && printf '%s' "$err" | grep -Eq -- "$re"; then
		pass "$desc"
	else
		fail "$desc" "exit $rc" "stderr: $err"
	fi
}

printf 'ClusterName=t\n' >"$TEST_DIR/base.conf"
for opt in "--slurm-conf $TEST_DIR/slurm.conf" "--reload-cmd true" "--restart-cmd true"; do
	# shellcheck disable=SC2086
	start_fails "without a token, ${opt%% *} is refused" "need --token-file" $opt
done
ok "... and no slurm.conf was written" test ! -e "$TEST_DIR/slurm.conf"

tf=$TEST_DIR/token
(umask 077 && printf 'secret-%s\n' "$$" >"$tf")
chmod 0644 "$tf"
start_fails "a group/world-readable token file is refused" "readable by no one else" --token-file "$tf"
chmod 0600 "$tf"
ln -s "$tf" "$TEST_DIR/link"
start_fails "a token file that is a symlink is refused" "cannot open --token-file" --token-file "$TEST_DIR/link"
mkfifo "$TEST_DIR/fifo"
start_fails "a FIFO is not read (no hang)" "not a regular file" --token-file "$TEST_DIR/fifo"
(umask 077 && : >"$TEST_DIR/empty")
start_fails "an empty token file is refused" "expected one token" --token-file "$TEST_DIR/empty"
(umask 077 && printf 'a b\n' >"$TEST_DIR/spaces")
start_fails "a token with a space is refused" "expected one token" --token-file "$TEST_DIR/spaces"

CMDS=$TEST_DIR/cmds
emu_start --token-file "$tf" --slurm-conf "$TEST_DIR/slurm.conf" --slurm-base "$TEST_DIR/base.conf" \
	--reload-cmd "echo reload >>'$CMDS'" --restart-cmd "echo restart >>'$CMDS'" ||
	{ fail "the emulator starts with --token-file"; exit 1; }
pass "the emulator starts with --token-file and --slurm-conf"
unlike "$(tr '\0' ' ' <"/proc/$EMU_PID/cmdline")" "secret-$$" "the token is not in /proc/PID/cmdline"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary @<(emu_standard_cluster) \
	"$EMU_CLUSTERS?model_development_cluster_id=c1")
is "$code" 401 "a create without the token is refused (401)"
EMU_AUTH="Authorization: Bearer secret-$$" emu_create_cluster c1 >/dev/null
ok "with the token from the file it is accepted" wait_until 20 test -s "$TEST_DIR/slurm.conf"
