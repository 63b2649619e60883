#!/usr/bin/env bash
# The writer lock and what it cannot do.
# Keyed by endpoint and cluster; a symlink at its path is refused; a
# holder that keeps it is named and the wait ends; Ctrl-C while waiting is
# not reported as "no change".  Writers that do not share a lock directory
# (two login nodes) never lose an update in silence: the overwritten one
# says so and exits 11; with a shared directory nothing is lost.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 43
for c in flock useradd userdel runuser; do
	command -v "$c" >/dev/null || skip_all "needs $c"
done
export MDC_CONF=/dev/null
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
M() { "$top_builddir/mdcctl" "$@"; }
exited() { ! kill -0 "$1" 2>/dev/null; }
hold() { curl -sS -X POST --data-binary "{\"hold\":$1}" "$EMU_URL/emulator/v1/operations:hold" >/dev/null; }
partitions() {
	M --format json partition list | jq -r '.[] | "\(.id)=\(.config.MaxTime // "-")"' | sort -V
}

# operations end at once unless held: the interleavings below are set up
# by holding them, not by racing the clock
EMU_LRO_SECONDS=0 emu_up
emu_standard_cluster | jq '.orchestrator_spec.slurm_spec.partitions = [range(1; 9) | {id: "p\(.)", node_pool_ids: ["cpu"]}] | .orchestrator_spec.slurm_spec.default_partition_id = "p1"' \
	>"$TEST_DIR/c8.json"
emu_create_cluster c1 "$TEST_DIR/c8.json" >/dev/null || skip_all "cannot create the test cluster"
export MDC_ENDPOINT=$EMU_URL

# --- the lock file -------------------------------------------------------------------
export MDC_LOCK_DIR=$TEST_DIR/locks
mkdir -m 700 "$MDC_LOCK_DIR"
ok "a write creates its lock file" M partition update p1 MaxTime=1
LOCK=$(ls "$MDC_LOCK_DIR")
like "$LOCK" '^mdc-c1-[0-9a-f]{16}\.lock$' "named for the cluster id and a hash of endpoint and cluster"
is "$(stat -c %a "$MDC_LOCK_DIR/$LOCK")" 600 "mode 0600, whatever the umask: only its owner may open it"
LOCK=$MDC_LOCK_DIR/$LOCK

# --- an ordinary user cannot block root's writes (24.2) -----------------------------
# flock() needs only a read-only descriptor, so any user who can open the
# lock file can hold it.  In a sticky directory anyone may enter (as
# /run/lock): root's file is 0600, a user's write fails before touching
# it, and a file left 0666 by an older version or planted by the user is
# replaced by root's next write.
U=mdclock$$
useradd -M -N -d /nonexistent -s /bin/sh "$U" || { fail "useradd $U"; exit 1; }
at_exit "userdel '$U' 2>/dev/null"
PUB=$(mktemp -d /tmp/mdclock.XXXXXX)
at_exit "rm -rf '$PUB'"
chmod 1777 "$PUB"
as_user() { runuser -u "$U" -- env MDC_LOCK_DIR="$PUB" "$@"; }
ok "root's write in a public sticky lock directory" \
	env MDC_LOCK_DIR="$PUB" "$top_builddir/mdcctl" partition update p1 MaxTime=2
PLOCK=$PUB/$(basename "$LOCK")
is "$(stat -c '%a %U' "$PLOCK")" "600 root" "its lock file is root's, mode 0600"
nok "the user cannot flock root's lock file" as_user flock -n -s "$PLOCK" true
before=$(stat -c '%s %Y %i' "$PLOCK"; cat "$PLOCK")
err=$(as_user "$top_builddir/mdcctl" partition update p1 MaxTime=7 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "the user's write is refused (exit $EXIT_REFUSED)"
like "$err" "permission denied.*broker" "... with 'permission denied', naming the broker"
is "$(stat -c '%s %Y %i' "$PLOCK"; cat "$PLOCK")" "$before" "... and the lock file is not modified"
is "$(partitions | head -1)" "p1=2" "... nor the cluster"
# no lock file yet, or a lock directory of the user's own: a user's
# command still never creates or writes one (only root takes the lock)
mv "$PLOCK" "$PLOCK.root"
err=$(as_user "$top_builddir/mdcctl" partition update p1 MaxTime=7 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "with no lock file yet, the user's write is refused too"
like "$err" "permission denied: only root takes the writer lock.*broker" "... naming root and the broker"
ok "... and creates no lock file" test ! -e "$PLOCK"
UDIR=$(mktemp -d /tmp/mdclocku.XXXXXX)
at_exit "rm -rf '$UDIR'"
chown "$U" "$UDIR"; chmod 700 "$UDIR"
err=$(runuser -u "$U" -- env MDC_LOCK_DIR="$UDIR" "$top_builddir/mdcctl" partition update p1 MaxTime=7 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "the user's write with a lock directory of its own is refused"
is "$(ls -A "$UDIR")" "" "... and creates nothing there"
is "$(partitions | head -1)" "p1=2" "... nor changes the cluster"
mv "$PLOCK.root" "$PLOCK"
held() { grep -q "FLOCK.*WRITE.*:$(stat -c %i "$PLOCK" 2>/dev/null) " /proc/locks; }
# a 0666 file of an older version, held by the user
chmod 666 "$PLOCK"
runuser -u "$U" -- flock "$PLOCK" sleep 60 2>/dev/null &
uholder=$!
at_exit "kill $uholder 2>/dev/null"
wait_until 20 held
err=$(MDC_LOCK_DIR=$PUB M --timeout 2 partition update p1 MaxTime=8 2>&1); rc=$?
is "$rc" 0 "the user holding a 0666 lock file of an older version does not block root's write"
like "$err" "replaced" "... which replaces the file, saying so"
is "$(stat -c '%a %U' "$PLOCK")" "600 root" "... with one of mode 0600"
kill "$uholder"; wait "$uholder" 2>/dev/null
# a file the user planted before root's first write, and holds
rm -f "$PLOCK"
runuser -u "$U" -- flock "$PLOCK" sleep 60 2>/dev/null &
uholder=$!
at_exit "kill $uholder 2>/dev/null"
wait_until 20 test -e "$PLOCK"
wait_until 20 held
err=$(MDC_LOCK_DIR=$PUB M --timeout 2 partition update p1 MaxTime=9 2>&1); rc=$?
is "$rc/$(partitions | head -1)" "0/p1=9" "a lock file planted and held by the user does not block root's write"
is "$(stat -c '%a %U' "$PLOCK")" "600 root" "... which replaces it with root's"
kill "$uholder"; wait "$uholder" 2>/dev/null
M partition update p1 MaxTime=1 >/dev/null	# as the sections below expect

# the same cluster name behind another endpoint is another lock (10.9):
# an emulator that is not running still shows which file a write takes
flock "$LOCK" sleep 60 &
holder=$!
at_exit "kill $holder 2>/dev/null"
wait_until 20 grep -q "FLOCK.*WRITE $holder " /proc/locks
err=$(MDC_ENDPOINT=http://127.0.0.1:9 MDC_RETRY_BASE_MS=1 M --timeout 2 partition update p1 MaxTime=2 2>&1); rc=$?
is "$rc" "$EXIT_HTTP" "another endpoint's lab named c1 does not wait on this one's lock"
unlike "$err" "writer lock" "... (no lock wait at all)"

# a holder that keeps it is named, and the wait ends with a message
err=$(M --timeout 1 partition update p1 MaxTime=3 2>&1); rc=$?
is "$rc" "$EXIT_CONFLICT" "a lock held past --timeout exits $EXIT_CONFLICT"
like "$err" "held|holds" "... saying it is held"
like "$err" "pid $holder \(flock, uid $(id -u)\)" "... naming the holder (pid, command, uid)"

# Ctrl-C while waiting for it: exit 130, and never "no change"
# (the binary itself in the background: $! of a function is a subshell)
"$top_builddir/mdcctl" partition update p1 MaxTime=4 >"$TEST_DIR/intr.out" 2>"$TEST_DIR/intr.err" &
pid=$!
at_exit "kill -9 $pid 2>/dev/null"
wait_until 30 grep -q "waiting for the writer lock" "$TEST_DIR/intr.err"
like "$(cat "$TEST_DIR/intr.err")" "held by pid $holder \(flock" "a waiting writer says who holds the lock"
kill -INT "$pid"
wait_until 5 exited "$pid"; gone=$?
wait "$pid"; rc=$?
is "$gone/$rc" "0/$EXIT_INTERRUPTED" "Ctrl-C while waiting for the lock exits $EXIT_INTERRUPTED within 5 s"
unlike "$(cat "$TEST_DIR/intr.out" "$TEST_DIR/intr.err")" "no change" "... and does not claim 'no change'"
like "$(cat "$TEST_DIR/intr.err")" "nothing was sent" "... but says nothing was sent"
kill "$holder"; wait "$holder" 2>/dev/null

# a symlink planted at the lock path: refused, its target never created
rm -f "$LOCK"
ln -s "$TEST_DIR/victim" "$LOCK"
err=$(M partition update p1 MaxTime=5 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "a symlink at the lock path is refused"
like "$err" "symbolic link" "... saying so"
ok "the symlink's target was not created" test ! -e "$TEST_DIR/victim"
rm -f "$LOCK"
# a lock directory anyone may rearrange is refused
mkdir -m 777 "$TEST_DIR/open"
chmod 777 "$TEST_DIR/open"
err=$(MDC_LOCK_DIR=$TEST_DIR/open M partition update p1 MaxTime=6 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "a world-writable lock directory without the sticky bit is refused"
like "$err" "chmod \+t" "... saying how to fix it"

# --- a lost update across two login nodes is detected (16.4) -------------------------
# Writer A (lock dir "nodeA") updates p1; its operation is held.  Writer B
# on another node read the cluster before A's change and PATCHes right
# after A's operation ends, sending the partition list without A's change
# (no etag in the API).  A's read-back sees it and says so.
stale=$(curl -sS "$EMU_CLUSTERS/c1")
hold true
: >"$EMU_LOG"
mkdir "$TEST_DIR/nodeA"
MDC_LOCK_DIR=$TEST_DIR/nodeA "$top_builddir/mdcctl" partition update p1 MaxTime=11 \
	>"$TEST_DIR/a.out" 2>"$TEST_DIR/a.err" &
apid=$!
at_exit "kill -9 $apid 2>/dev/null"
# A polls every 0.1 s for 2 s (20 polls), then backs off x1.5: after 28
# its next one is >2 s away
polls() { [ "$(jq -r 'select(.method == "GET" and (.path | test("/operations/"))) | .path' "$EMU_LOG" | wc -l)" -ge 28 ]; }
wait_until 60 polls
printf '%s' "$stale" | jq '{orchestrator_spec: {slurm_spec: {partitions: (.orchestratorSpec // .orchestrator_spec | .slurmSpec // .slurm_spec | .partitions | map(if .id == "p2" then .config = {MaxTime: "22"} else . end))}}}' \
	>"$TEST_DIR/b.json"
# release A's operation and send B's PATCH in one curl run (back to back)
curl -sS -o /dev/null -X POST --data-binary '{"hold":false}' "$EMU_URL/emulator/v1/operations:hold" \
	--next -sS -o "$TEST_DIR/b.op" -X PATCH -H 'Content-Type: application/json' --data-binary @"$TEST_DIR/b.json" \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.partitions"
wait_until 30 exited "$apid"
wait "$apid"; rc=$?
is "$rc" "$EXIT_LOST" "the overwritten writer exits $EXIT_LOST"
like "$(cat "$TEST_DIR/a.err")" "another writer has replaced it" "... saying its update was replaced"
unlike "$(cat "$TEST_DIR/a.out")" "updated" "... and never prints 'updated'"
like "$(partitions | tr '\n' ' ')" "^p1=1 p2=22 " "(B's PATCH did overwrite A's change)"

# --- concurrent writers: two lock dirs, then one shared ---------------------------------
# every writer that exits 0 has its change at the end; the others say why
emu_stop
EMU_DIR_NEXT=$EMU_DIR EMU_LRO_SECONDS=0.5 emu_start || skip_all "cannot restart the emulator"
export MDC_ENDPOINT=$EMU_URL
run_writers() {	# DIR-A DIR-B VALUE-BASE: one writer per partition p1..p8
	local i pids=()
	for i in $(seq 1 8); do
		MDC_LOCK_DIR=$([ $((i % 2)) = 0 ] && echo "$1" || echo "$2") \
			"$top_builddir/mdcctl" partition update "p$i" "MaxTime=$(($3 + i))" \
			>"$TEST_DIR/w$i.out" 2>&1 &
		pids+=($!)
	done
	at_exit "kill ${pids[*]} 2>/dev/null"
	for i in $(seq 1 8); do wait "${pids[$((i - 1))]}"; echo "p$i $?"; done
}
mkdir -p "$TEST_DIR/n1" "$TEST_DIR/n2" "$TEST_DIR/shared"
rcs=$(run_writers "$TEST_DIR/n1" "$TEST_DIR/n2" 100)
final=$(partitions)
silent=0 bad=0
while read -r p code; do
	case $code in
	0) grep -qx "$p=$((100 + ${p#p}))" <<<"$final" || silent=$((silent + 1)) ;;
	"$EXIT_CONFLICT" | "$EXIT_LOST") grep -q "error:" "$TEST_DIR/w${p#p}.out" || bad=$((bad + 1)) ;;
	*) bad=$((bad + 1)) ;;
	esac
done <<<"$rcs"
is "$silent" 0 "two lock dirs: no writer exits 0 with its change lost"
is "$bad" 0 "two lock dirs: the others exit $EXIT_CONFLICT or $EXIT_LOST with one error line"
diag "two lock dirs, partition and exit code: $(echo $rcs)"
[ "$silent$bad" = 00 ] || diag "$final" "$(cat "$TEST_DIR"/w*.out)"
rcs=$(run_writers "$TEST_DIR/shared" "$TEST_DIR/shared" 200)
is "$(awk '$2 != 0' <<<"$rcs" | wc -l | tr -d ' ')" 0 "one shared lock dir: all 8 writers exit 0"
is "$(partitions | tr '\n' ' ')" "$(for i in $(seq 1 8); do printf 'p%s=%s ' "$i" $((200 + i)); done)" \
	"one shared lock dir: all 8 changes are there"
