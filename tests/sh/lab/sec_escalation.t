#!/usr/bin/env bash
# The privilege escalation, replayed on a real managed lab with
# a real unprivileged user made for the test: a local user could PATCH the
# lab's unauthenticated emulator with PrologSlurmctld=/tmp/x.sh and have
# the next regeneration run the script as root.  Now the emulator needs a
# token the user cannot read, and even with the token every key that names
# a program is refused: slurm.conf never changes and the script never runs.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

lab_need
for c in useradd userdel runuser curl jq; do
	command -v "$c" >/dev/null || skip_all "'$c' is not installed"
done
lab_up --managed
plan 28

# the throwaway user, removed at exit (its files first)
U=mdcsec$$
useradd -M -N -d /nonexistent -s /bin/sh "$U" || { fail "useradd $U"; exit 1; }
at_exit "userdel '$U' 2>/dev/null"
UDIR=$(mktemp -d /tmp/mdcsec.XXXXXX)
at_exit "rm -rf '$UDIR'"
chown "$U" "$UDIR"
chmod 0755 "$UDIR"
as_user() { runuser -u "$U" -- "$@"; }

# the attacker's payload: proof that it ran, as whom
cat >"$UDIR/x.sh" <<EOF
#!/bin/sh
id -u >$UDIR/ran
EOF
chown "$U" "$UDIR/x.sh"
chmod 0755 "$UDIR/x.sh"
URL="$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER"
SS=orchestrator_spec.slurm_spec
conf_sum() { sha256sum <"$SLURM_CONF"; }
before=$(conf_sum)
syncs=$(lab_syncs)
evil=$(jq -nc --arg p "$UDIR/x.sh" '{orchestrator_spec: {slurm_spec: {config: {PrologSlurmctld: $p}}}}')

# --- without the token ------------------------------------------------------------
is "$(id -u "$U")" "$(as_user id -u)" "the test user exists and commands run as it"
isnt "$(as_user id -u)" 0 "... and it is not root"
code=$(as_user curl -s -o "$UDIR/resp" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
	--data-binary "$evil" "$URL?updateMask=$SS.config")
is "$code" 401 "as the user, a PATCH without a token is refused (401)"
is "$(jq -r .error.status "$UDIR/resp")" UNAUTHENTICATED "... UNAUTHENTICATED"
code=$(as_user curl -s -o /dev/null -w '%{http_code}' -X PATCH -H 'Authorization: Bearer guess' \
	--data-binary "$evil" "$URL?updateMask=$SS.config")
is "$code" 401 "as the user, a PATCH with a guessed token is refused (401)"
code=$(as_user curl -s -o /dev/null -w '%{http_code}' "$URL")
is "$code" 401 "as the user, even a GET without the token is refused"

# --- the token file ------------------------------------------------------------------
like "$MDC_TOKEN_FILE" "^$LAB_DIR/" "the token file is in the lab directory"
is "$(stat -c '%U %a' "$MDC_TOKEN_FILE")" "root 600" "the token file is root's, mode 0600"
nok "the user cannot read the token file" as_user cat "$MDC_TOKEN_FILE"
tok=$(<"$MDC_TOKEN_FILE")
ok "the token is long and random (64 hex digits)" test "${#tok}" = 64
pid=$(<"$LAB_DIR/run/emulator.pid")
cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline")
like "$cmdline" "mdc-emulator .*--token-file $MDC_TOKEN_FILE" "the emulator reads the token from the file"
unlike "$cmdline" "$tok" "the token is not in the emulator's /proc/PID/cmdline"
nok "... nor in its environment" grep -qF "$tok" "/proc/$pid/environ"
nok "... nor in the lab's log or request log" grep -rqF "$tok" "$LAB_DIR/log" "$LAB_DIR/emu/requests.log"

# --- with the token, the key-based attack is refused ----------------------------------------
for k in PrologSlurmctld EpilogSlurmctld TaskProlog SrunProlog UnkillableStepProgram; do
	body=$(jq -nc --arg k "$k" --arg p "$UDIR/x.sh" '{orchestrator_spec: {slurm_spec: {config: {($k): $p}}}}')
	code=$(lab_curl -o "$TEST_DIR/resp" -w '%{http_code}' -X PATCH --data-binary "$body" \
		"$URL?updateMask=$SS.config")
	like "$code $(jq -r .error.message "$TEST_DIR/resp")" "^400 .*'$k' is refused" \
		"with the token, $k=.../x.sh is refused, named"
done
body=$(jq -nc '{orchestrator_spec: {slurm_spec: {config: {JobSubmitPlugins: "lua", Include: "/tmp/evil.conf"}}}}')
code=$(lab_curl -o /dev/null -w '%{http_code}' -X PATCH --data-binary "$body" "$URL?updateMask=$SS.config")
is "$code" 400 "with the token, JobSubmitPlugins and Include are refused"
is "$(conf_sum)" "$before" "slurm.conf is unchanged after every refused PATCH"
is "$(lab_syncs)" "$syncs" "... and no regeneration ran"
# the client refuses before sending: nothing reaches the emulator
export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_ACCESS_TOKEN
n=$(grep -c '"method":"PATCH"' "$LAB_DIR/emu/requests.log")
out=$(mdcctl config set "PrologSlurmctld=$UDIR/x.sh" 2>&1); rc=$?
like "$rc $out" "^$EXIT_REFUSED .*'PrologSlurmctld' is refused: runs a program as root: use prolog_bash_scripts" \
	"mdcctl refuses PrologSlurmctld before sending"
is "$(grep -c '"method":"PATCH"' "$LAB_DIR/emu/requests.log")" "$n" "... nothing was sent"

# a legitimate change still goes through (the token works), so the lab
# would have regenerated and reloaded had the attack passed
n=$(lab_syncs)
ok "with the token, mdcctl applies a harmless change" mdcctl --yes config set PriorityWeightAge=777
ok "... and the lab regenerates slurm.conf" lab_wait_sync "$n"
ok "slurm.conf has no PrologSlurmctld, Include or JobSubmitPlugins from the attack" \
	sh -c "! grep -Eq '^(PrologSlurmctld|EpilogSlurmctld|TaskProlog|SrunProlog|UnkillableStepProgram|Include)=|x\\.sh' '$SLURM_CONF'"
ok "the payload never ran" test ! -e "$UDIR/ran"
