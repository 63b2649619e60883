#!/usr/bin/env bash
# mdcd on a real lab (its munged, slurmctld, the emulator) with real local
# users created here: reads for everybody, writes refused with the rule
# named and nothing sent, an AdminGroups member writes (after SIGHUP) and
# the record names them, a replayed or misused credential is refused, the
# token is nowhere the user can read, 20 concurrent writers lose nothing,
# rollback restores an earlier spec that survives a regeneration, and a
# broker that is down fails at once.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/emu.sh"

for c in jq python3 setpriv useradd munge; do
	command -v "$c" >/dev/null || skip_all "$c is not installed"
done
[ -x "$top_builddir/mdcd" ] || skip_all "mdcd is not built (configure found no libmunge, or --without-munge)"
need_root
# the test's users must reach the lab's sockets through the test directory
chmod 0755 "$TEST_DIR"
lab_up --managed --broker
plan 68

MDCCTL=$top_builddir/mdcctl
MDCD=$top_builddir/mdcd
export MDC_CONF=$TEST_DIR/mdc.conf
: >"$MDC_CONF"
chmod 0644 "$MDC_CONF"
log=$LAB_DIR/emu/requests.log
mdcd_log=$LAB_DIR/log/mdcd.log
audit=$LAB_DIR/state/mdcd/audit.log
show_on_fail "$mdcd_log" "$audit"

# --- users: one plain, one in the admin group (names unique to this run)
sfx=$$
user=mdcu$sfx admin=mdca$sfx group=mdcg$sfx
shadow groupadd "$group" || { echo "Bail out! groupadd failed"; exit 1; }
at_exit "shadow groupdel '$group' 2>/dev/null"
shadow useradd -M -N -s /usr/sbin/nologin "$user" && lab_release_user "$user" ||
	{ echo "Bail out! useradd failed"; exit 1; }
at_exit "shadow userdel '$user' 2>/dev/null"
shadow useradd -M -N -G "$group" -s /usr/sbin/nologin "$admin" && lab_release_user "$admin" ||
	{ echo "Bail out! useradd failed"; exit 1; }
at_exit "shadow userdel '$admin' 2>/dev/null"

# as USER CMD...: run CMD as USER with only the broker's settings
as() {
	local u=$1; shift
	lab_setpriv "$u" \
		env -i PATH="$PATH" SLURM_CONF="$SLURM_CONF" MDC_CONF="$MDC_CONF" \
		MDC_CLUSTER="$MDC_CLUSTER" MDC_BROKER="$MDC_BROKER" \
		MDC_MUNGE_SOCKET="$MDC_MUNGE_SOCKET" HOME=/ "$@"
}
writes() { grep -c '"method":"\(PATCH\|POST\|DELETE\)"' "$log"; }
# everything users saw, for the token check at the end
seen=$TEST_DIR/seen
: >"$seen"
run_as() { local out; out=$(as "$@" 2>&1); local rc=$?; printf '%s\n' "$out" >>"$seen"; printf '%s' "$out"; return $rc; }

# --- the socket: anybody may connect (munge decides), in mdcd's own 0755 dir
is "$(stat -c '%a %U' "$MDC_BROKER") $(stat -c '%a %U' "$(dirname "$MDC_BROKER")")" \
	"666 root 755 root" "socket mode 0666 in a 0755 directory"

# --- reads for every authenticated user
out=$(run_as "$user" "$MDCCTL" describe); rc=$?
is "$rc" 0 "a plain user describes the cluster through mdcd"
like "$out" "modelDevelopmentClusters/lab" "the description names the cluster"
out=$(run_as "$user" "$MDCCTL" partition list); rc=$?
is "$rc $(grep -c debug <<<"$out")" "0 1" "a plain user lists the partitions"

# --- a write from a plain user: refused, the rule named, nothing sent
n=$(writes)
out=$(run_as "$user" "$MDCCTL" config set PriorityWeightAge=10); rc=$?
is "$rc" "$EXIT_REFUSED" "a plain user's write is refused (exit $EXIT_REFUSED, as any refusal)"
like "$out" "mdcd refused the write: user '$user' .* not root, not the SlurmUser '[a-z]+', not in AdminGroups \(none set\), and AdminFromSlurm is off; nothing was sent" \
	"the refusal names each rule that refused"
is "$(writes)" "$n" "nothing was sent to the API"
like "$(grep "$user" "$mdcd_log" | tail -1)" "refused" "mdcd logs the refusal"

# --- AdminFromSlurm without slurmdbd: the rule says why it cannot tell
hup() { kill -HUP "$(cat "$LAB_DIR/run/mdcd.pid")"; }
echo "AdminFromSlurm = yes" >>"$LAB_DIR/etc/mdc.conf"
hup
reloaded() { grep -q "AdminGroups=$1 AdminFromSlurm=$2" "$mdcd_log"; }
ok "mdcd reads its settings again on SIGHUP" wait_until 10 reloaded "" yes
out=$(run_as "$user" "$MDCCTL" config set PriorityWeightAge=10); rc=$?
like "$out" "and AdminFromSlurm could not tell: sacctmgr failed \(is slurmdbd running\?\)" \
	"AdminFromSlurm=yes without slurmdbd: refused, saying why"
is "$(writes)" "$n" "still nothing sent"

# --- SIGHUP reads AdminGroups; a member writes, the record names them
sed -i "s/^AdminGroups = .*/AdminGroups = $group/; s/^AdminFromSlurm = .*/AdminFromSlurm = no/" \
	"$LAB_DIR/etc/mdc.conf"
hup
ok "AdminGroups set on the next SIGHUP" wait_until 10 reloaded "$group" no
out=$(run_as "$user" "$MDCCTL" config set PriorityWeightAge=10); rc=$?
is "$rc" "$EXIT_REFUSED" "the plain user is still refused (not in the group)"
like "$out" "not in AdminGroups \($group\)" "the refusal names the group"
syncs=$(lab_syncs)
out=$(run_as "$admin" "$MDCCTL" partition update debug MaxTime=30); rc=$?
is "$rc" 0 "a member of AdminGroups writes through mdcd"
like "$out" "MaxTime: \(absent\) -> 30" "with the same plan output as without mdcd"
is "$(grep '"method":"PATCH"' "$log" | tail -1 | jq -r '.query.updateMask + " " + .query.updateMode')" \
	"orchestrator_spec.slurm_spec.partitions USER_ONLY" "the smallest mask, USER_ONLY, reached the API"
last=$(tail -1 "$audit")
is "$(jq -r '[.user, .uid == '"$(id -u "$admin")"', .op, .result, .mode, (.mask|join(","))] | join(" ")' <<<"$last")" \
	"$admin true update ok USER_ONLY orchestrator_spec.slurm_spec.partitions" \
	"the audit line names the user, uid, operation, mode, mask and result"
is "$(jq -r '[.intent.ops[0].kind, .intent.ops[0].id, .intent.ops[0].key, .intent.ops[0].value] | join(" ")' <<<"$last")" \
	"partition-set debug MaxTime 30" "the audit line carries the intent"
like "$(jq -r '.before + " " + .after + " " + .command' <<<"$last")" \
	"^sha256:[0-9a-f]{64} sha256:[0-9a-f]{64} .*mdcctl partition update debug MaxTime=30$" \
	"digests of the spec before and after, and the command"
id1=$(jq -r .id <<<"$last")
ok "the spec before and after write $id1 are kept" \
	test -s "$LAB_DIR/state/mdcd/specs/$id1.before.json" -a -s "$LAB_DIR/state/mdcd/specs/$id1.after.json"
out=$(run_as "$user" "$MDCCTL" history); rc=$?
like "$(grep "^$id1 " <<<"$out")" "^$id1 +[0-9TZ:-]+ +$admin +update +ok +.*partition update debug MaxTime=30" \
	"mdcctl history shows the write with the admin's name (to any user)"
lab_wait_sync "$syncs" 60 || diag "the lab did not report the reload in 60 s"

# --- raw requests: the credential binds the request and is good once
sock=$MDC_MUNGE_SOCKET
# envelope USER BODY FILE [MUNGE-OPTS]: a request line with a fresh
# credential of USER's
envelope() {
	local d cred
	d=$(printf '%s' "$2" | sha256sum | cut -d' ' -f1)
	cred=$(printf 'mdcd/1 sha256=%s' "$d" | as "$1" munge --socket="$sock" ${4:-}) || return 1
	jq -nc --arg c "$cred" --arg b "$2" '{mdcd: 1, cred: $c, body: $b}' >"$3"
	chmod 0644 "$3"
}
# raw USER FILE: send the line of FILE as USER, print mdcd's final answer
# (the last line: an accepted request first gets {"accepted":true})
raw() {
	as "$1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(open(sys.argv[2], "rb").read())
s.shutdown(socket.SHUT_WR)
d = b""
while True:
    c = s.recv(65536)
    if not c:
        break
    d += c
sys.stdout.write(d.decode())' "$MDC_BROKER" "$2" | tail -n 1
}
body='{"op":"whoami","v":1}'
envelope "$user" "$body" "$TEST_DIR/req1" || fail "munge a credential as the user"
out=$(raw "$user" "$TEST_DIR/req1")
printf '%s\n' "$out" >>"$seen"
is "$(jq -r '[.ok, .result.user, .result.write] | join(" ")' <<<"$out")" "true $user false" \
	"a raw request with a fresh credential is answered (who: the user, may not write)"
out=$(raw "$user" "$TEST_DIR/req1")
is "$(jq -r '.ok' <<<"$out")" false "the same credential again is refused"
like "$(jq -r '.error.message' <<<"$out")" "munge credential refused: replayed" "the refusal says it was replayed"
envelope "$user" "$body" "$TEST_DIR/req2"
jq -c --arg b '{"op":"history","v":1}' '.body = $b' "$TEST_DIR/req2" >"$TEST_DIR/req3"
chmod 0644 "$TEST_DIR/req3"
out=$(raw "$user" "$TEST_DIR/req3")
like "$(jq -r '.error.message' <<<"$out")" "made for another request" \
	"a credential cannot carry another request"
envelope "$admin" "$body" "$TEST_DIR/req4"
out=$(raw "$user" "$TEST_DIR/req4")
like "$(jq -r '.error.message' <<<"$out")" "another user's: refused" \
	"another user's credential on the user's connection is refused"
t0=$(date +%s)
envelope "$user" "$body" "$TEST_DIR/req6" --ttl=1
later() { [ "$(date +%s)" -ge $((t0 + 3)) ]; }
wait_until 10 later
out=$(raw "$user" "$TEST_DIR/req6")
like "$(jq -r '.error.message' <<<"$out")" "munge credential refused: expired" \
	"an expired credential is refused"
jq -nc --arg b "$body" '{mdcd: 1, body: $b}' >"$TEST_DIR/req5"
chmod 0644 "$TEST_DIR/req5"
out=$(raw "$user" "$TEST_DIR/req5")
is "$(jq -r '[.ok, .error.message] | join(" ")' <<<"$out")" \
	"false no munge credential: every request needs one" "no credential, no answer"

# --- rollback: back to the spec before a write, as an ordinary change
syncs=$(lab_syncs)
ok "the admin changes MaxTime again" as "$admin" "$MDCCTL" partition update debug MaxTime=60
id2=$(jq -r .id <(tail -1 "$audit"))
lab_wait_sync "$syncs" 60 || diag "no reload after MaxTime=60"
out=$(run_as "$admin" "$MDCCTL" rollback "$id2" </dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "rollback without --yes and without a terminal asks and sends nothing"
like "$out" "MaxTime: 60 -> 30" "it shows the change first"
syncs=$(lab_syncs)
out=$(run_as "$admin" "$MDCCTL" --yes rollback "$id2"); rc=$?
is "$rc" 0 "rollback $id2 --yes applies it"
like "$out" "rollback to before write $id2: updated" "and says so"
lab_wait_sync "$syncs" 60 || diag "no reload after the rollback"
is "$(jq -c '.orchestrator_spec.slurm_spec.partitions' "$LAB_DIR/state/mdcd/specs/$id2.before.json" | jq -c '.[0].config')" \
	"$(as "$admin" "$MDCCTL" --format json describe | jq -c '(.orchestratorSpec // .orchestrator_spec) | (.slurmSpec // .slurm_spec).partitions[0].config')" \
	"the partition config is the one before write $id2"
# a later write regenerates slurm.conf from the spec: the rollback stays
syncs=$(lab_syncs)
ok "an unrelated write regenerates slurm.conf" as "$admin" "$MDCCTL" labels set after=rollback
lab_wait_sync "$syncs" 60 || diag "no reload after the labels write"
like "$(grep '^PartitionName=debug' "$SLURM_CONF")" "MaxTime=30( |$)" \
	"the regenerated slurm.conf keeps MaxTime=30"
pmax() { scontrol show partition debug --oneliner | grep -q "MaxTime=$1"; }
ok "slurmctld runs with MaxTime=30" wait_until 10 pmax 00:30:00

# --- a raw PATCH of the cluster keeps the spec before it, so rollback works
printf '{"labels":{"raw":"patch"}}\n' >"$TEST_DIR/raw.json"
chmod 0644 "$TEST_DIR/raw.json"
syncs=$(lab_syncs)
out=$(run_as "$admin" "$MDCCTL" update "$TEST_DIR/raw.json" --update-mask labels); rc=$?
is "$rc" 0 "a raw PATCH of the cluster through mdcd"
lab_wait_sync "$syncs" 60 || diag "no reload after the raw PATCH"
last=$(tail -1 "$audit")
id3=$(jq -r .id <<<"$last")
is "$(jq -r --arg c "$MDC_CLUSTER" '[.op, (.mask | join(",")), .cluster == $c, (.before | test("^sha256:[0-9a-f]{64}$"))] | join(" ")' <<<"$last")" \
	"update labels true true" "its record names the update, its mask, the cluster and the digest of the spec before"
is "$(jq -r '.labels.raw // "none"' "$LAB_DIR/state/mdcd/specs/$id3.before.json" 2>&1)" none \
	"the spec before the raw write is kept"
syncs=$(lab_syncs)
out=$(run_as "$admin" "$MDCCTL" --yes rollback "$id3"); rc=$?
is "$rc" 0 "rollback $id3 undoes the raw write"
is "$(as "$admin" "$MDCCTL" --format json describe | jq -r '.labels.raw // "none"')" none \
	"the label it set is gone"
lab_wait_sync "$syncs" 60 || diag "no reload after the rollback of the raw write"

# --- mdc-scontrol through the broker (root: the live update needs it)
syncs=$(lab_syncs)
ok "mdc-scontrol update through mdcd" "$top_builddir/mdc-scontrol" update PartitionName=debug MaxTime=45
ok "slurmctld has MaxTime=45" wait_until 10 pmax 00:45:00
is "$(tail -1 "$audit" | jq -r '[.user, .result, (.command | test("mdc-scontrol update PartitionName=debug MaxTime=45$"))] | join(" ")')" \
	"root ok true" "the record names root and the mdc-scontrol command"
lab_wait_sync "$syncs" 60 || diag "no reload after mdc-scontrol"

# --- a change the caller's side refuses (jobs in the partition it
# deletes: only the caller's slurmctld knows) is refused with that reason,
# not "cancelled", and mdcd sends nothing
syncs=$(lab_syncs)
ok "create partition busy through mdcd" "$MDCCTL" --yes partition create busy --node-pools compute
lab_wait_sync "$syncs" 60 || diag "no reload after the create"
wait_until 10 sh -c "scontrol show partition busy >/dev/null 2>&1"
job=$(sbatch --parsable --hold -p busy -o /dev/null --wrap true)
before=$(grep -c '"method":"PATCH"' "$log")
out=$("$MDCCTL" --yes partition delete busy 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "deleting a partition that holds a job through mdcd is refused (exit $EXIT_REFUSED)"
like "$out" "partition 'busy' still holds jobs $job \(PENDING\).*--force" "the reason is the jobs, named"
is "$(grep -c '"method":"PATCH"' "$log")" "$before" "nothing was sent"
scancel "$job"

# --- the token: nowhere the user can read
secret=$(cat "$LAB_DIR/emu/token")
nok "the user cannot read the token file" as "$user" cat "$LAB_DIR/emu/token"
is "$(as "$user" grep -rlF -- "$secret" "$LAB_DIR" "$TEST_DIR" 2>/dev/null)" "" \
	"no file the user can read holds the token"
mpid=$(cat "$LAB_DIR/run/mdcd.pid")
unlike "$(tr '\0' ' ' <"/proc/$mpid/cmdline")" "$secret" "mdcd's arguments do not hold it"
nok "the user cannot read mdcd's environment" as "$user" cat "/proc/$mpid/environ"
unlike "$(cat "$seen" "$mdcd_log" "$audit")" "$secret" \
	"no answer the user saw and no log line holds it"

# --- 20 concurrent writers through one mdcd lose nothing (a second mdcd
# on a fast emulator, the lab's munged)
EMU_LRO_SECONDS=0 emu_start >/dev/null || fail "second emulator"
emu_create_cluster c20 >/dev/null || fail "a cluster for the writers"
c20=$EMU_PARENT/modelDevelopmentClusters/c20
cat >"$TEST_DIR/mdcd2.conf" <<EOF
Endpoint = $EMU_URL
Cluster = $c20
MungeSocket = $MDC_MUNGE_SOCKET
AdminGroups = $group
SlurmConf = $SLURM_CONF
EOF
mkdir -m 0755 "$TEST_DIR/b2"
"$MDCD" -F -f "$TEST_DIR/mdcd2.conf" -s "$TEST_DIR/b2/mdcd.sock" -d "$TEST_DIR/b2/state" \
	-l "$TEST_DIR/b2/mdcd.log" &
m2=$!
at_exit "kill $m2 2>/dev/null; wait $m2 2>/dev/null"
show_on_fail "$TEST_DIR/b2/mdcd.log"
sock2() { [ -S "$TEST_DIR/b2/mdcd.sock" ]; }
wait_until 10 sock2 || fail "the second mdcd listens"
pids=()
for i in $(seq 1 20); do
	MDC_BROKER=$TEST_DIR/b2/mdcd.sock MDC_CLUSTER=$c20 \
		as "$admin" "$MDCCTL" labels set "w$i=v$i" >"$TEST_DIR/w$i.out" 2>&1 &
	pids+=($!)
done
fails=0
for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
is "$fails" 0 "20 concurrent writers all succeed"
got=$(curl -sS "$EMU_CLUSTERS/c20" | jq -r '[.labels | to_entries[] | select(.key | startswith("w"))] | length')
is "$got" 20 "all 20 labels are in the cluster: no lost update"
is "$(grep -c '"result":"ok"' "$TEST_DIR/b2/state/audit.log")" 20 "20 writes recorded"
is "$(grep -c '"method":"PATCH"' "$EMU_LOG")" 20 "20 PATCHes, one per writer"

# --- a broker that is stopped: an error after 10 s, not a hang
kill -STOP "$m2"
start=$SECONDS
out=$(MDC_BROKER=$TEST_DIR/b2/mdcd.sock MDC_CLUSTER=$c20 as "$user" "$MDCCTL" describe 2>&1); rc=$?
kill -CONT "$m2"
like "$rc $out" "^[1-9][0-9]* .*broker '.*' took the connection but does not answer" \
	"a stopped broker is an error, not a hang"
ok "within its 10 s bound (took $((SECONDS - start)) s)" test $((SECONDS - start)) -le 20

# --- SIGTERM stops mdcd; a broker that is down fails at once
kill -TERM "$m2"
wait "$m2"
is "$?" 0 "mdcd exits cleanly on SIGTERM"
start=$SECONDS
out=$(MDC_BROKER=$TEST_DIR/b2/mdcd.sock MDC_CLUSTER=$c20 as "$user" "$MDCCTL" describe 2>&1); rc=$?
like "$out" "broker '.*/b2/mdcd.sock' is not answering: .*is mdcd running" \
	"a broker that is down is a clear error"
ok "at once, never a hang (exit $rc in $((SECONDS - start)) s)" test $((SECONDS - start)) -le 5

# --- SIGTERM while a write waits for its operation: it finishes first
n=$(writes)
as "$admin" "$MDCCTL" labels set last=write >"$TEST_DIR/last.out" 2>&1 &
w=$!
sent() { [ "$(writes)" -gt "$n" ]; }
wait_until 20 sent || fail "the last write reached the API"
kill -TERM "$mpid"
wait "$w"
is "$?" 0 "the write in progress at SIGTERM completes"
like "$(cat "$TEST_DIR/last.out")" "labels: updated" "and its user is told"
is "$(tail -1 "$audit" | jq -r '.command | test("labels set last=write$")')" true "and it is recorded"
gone() { ! kill -0 "$mpid" 2>/dev/null; }
ok "then mdcd exits" wait_until 20 gone
