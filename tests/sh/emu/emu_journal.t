#!/usr/bin/env bash
# --state as a snapshot plus an append-only journal: a kill -9 at any
# moment leaves a loadable state holding every change that was answered;
# a cut last journal line is ignored, a journal of an older snapshot is
# never replayed, left-over temporary files are removed at start, and
# finished operations are kept up to a bound.  Idle connections neither
# lock normal requests out nor pile up.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 28
EMU_LRO_SECONDS=0 emu_up
dir=$EMU_DIR
emu_create_cluster c1 >/dev/null || fail "create c1"

# kill -9 in the middle of a stream of PATCHes, five times; after each
# restart the last answered value is there
bad=0
for round in 1 2 3 4 5; do
	(
		trap - EXIT	# the test's cleanup is not this subshell's
		for ((k = 1; k <= 40; k++)); do
			curl -sS -o /dev/null -X PATCH --data-binary "{\"labels\":{\"r\":\"$round\",\"k\":\"$k\"}}" \
				"$EMU_CLUSTERS/c1?updateMask=labels" 2>/dev/null
		done
	) &
	writer=$!
	sleep 0.$((RANDOM % 9 + 1))
	kill -9 "$EMU_PID"
	wait "$writer" 2>/dev/null
	wait "$EMU_PID" 2>/dev/null
	EMU_DIR_NEXT=$dir EMU_LRO_SECONDS=0 emu_start || { bad=$((bad + 1)); continue; }
	got=$(curl -sS "$EMU_CLUSTERS/c1" | jq -r '.labels | "\(.r // "-")/\(.k // "-")"')
	[ -n "$got" ] && [ "$got" != null/null ] || bad=$((bad + 1))
	diag "round $round: after kill -9 the cluster has labels r/k = $got"
done
is "$bad" 0 "five kill -9 during PATCH streams: each restart loads the state"

# the acknowledged-change guarantee, without a race in the test itself:
# answered PATCHes, then kill -9 at once
for k in 1 2 3; do
	curl -sS -o /dev/null -X PATCH --data-binary "{\"labels\":{\"ack\":\"$k\"}}" "$EMU_CLUSTERS/c1?updateMask=labels"
done
kill -9 "$EMU_PID"; wait "$EMU_PID" 2>/dev/null
EMU_DIR_NEXT=$dir EMU_LRO_SECONDS=0 emu_start || fail "restart"
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -r .labels.ack)" 3 "every answered change survives a kill -9"

# a line holds what changed, not the whole cluster: a label PATCH on a
# cluster of 200 partitions appends far less than the cluster's text, and
# every change and every operation's response is rebuilt after a kill -9
parts=$(jq -cn '[range(200) | {id: "p\(.)", node_pool_ids: ["cpu"], config: {MaxTime: "60"}}]')
op=$(curl -sS -X PATCH --data-binary "{\"orchestrator_spec\":{\"slurm_spec\":{\"partitions\":$parts,\"default_partition_id\":\"p0\"}}}" \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.partitions,orchestrator_spec.slurm_spec.default_partition_id" | jq -r .name)
emu_wait_op "$op" >/dev/null || fail "the partitions PATCH finishes"
before=$(stat -c %s "$dir/state.json.journal")
op2=$(curl -sS -X PATCH --data-binary '{"labels":{"small":"change"}}' "$EMU_CLUSTERS/c1?updateMask=labels" | jq -r .name)
emu_wait_op "$op2" >/dev/null || fail "the label PATCH finishes"
grown=$(( $(stat -c %s "$dir/state.json.journal") - before ))
size=$(curl -sS "$EMU_CLUSTERS/c1" | wc -c)
ok "a label PATCH appends $grown bytes to the journal, under half the cluster's $size" \
	test "$grown" -lt $((size / 2))
want_cl=$(curl -sS "$EMU_CLUSTERS/c1" | jq -S .)
want_ops=$(for o in "$op" "$op2"; do curl -sS "$EMU_URL/v1/$o" | jq -S .; done)
kill -9 "$EMU_PID"; wait "$EMU_PID" 2>/dev/null
EMU_DIR_NEXT=$dir EMU_LRO_SECONDS=0 emu_start || fail "restart after the compact lines"
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -S .)" "$want_cl" "the cluster is rebuilt from its changed members"
is "$(for o in "$op" "$op2"; do curl -sS "$EMU_URL/v1/$o" | jq -S .; done)" "$want_ops" \
	"the operations' responses are rebuilt from the resource"
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -c '[(.orchestratorSpec.slurmSpec.partitions | length), .labels.small]')" \
	'[200,"change"]' "... with its 200 partitions and the last label"

# back to back (lro 0) an update finishes in the line where the next one
# starts: the line holds the one partition that changed, not the list
# (the unchanged ones are the current cluster's, written as index ranges,
# and the finishing update's response and the cluster as deltas), and a
# restart rebuilds every response
list=$(printf '%s' "$parts" | wc -c)
# the first line after a restart holds the whole cluster, the base of
# the lines after it
op=$(curl -sS -X PATCH --data-binary '{"labels":{"small":"again"}}' "$EMU_CLUSTERS/c1?updateMask=labels" | jq -r .name)
emu_wait_op "$op" >/dev/null || fail "the label PATCH after the restart finishes"
before=$(stat -c %s "$dir/state.json.journal")
# five PATCHes over one connection (curl -K), so that no tick of the
# emulator's own finishes an update between two of them
for i in 1 2 3 4 5; do
	[ "$i" = 1 ] || echo next
	printf 'url = "%s"\nrequest = "PATCH"\n' "$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.partitions"
	printf 'data = %s\n' "$(jq -c --arg t "6$i" '{orchestrator_spec: {slurm_spec: {partitions: (.[0].config.MaxTime = $t)}}} | tojson' <<<"$parts")"
done >"$TEST_DIR/b2b.cfg"
mapfile -t bops < <(curl -sS -K "$TEST_DIR/b2b.cfg" | jq -r .name)
grown=$(( $(stat -c %s "$dir/state.json.journal") - before ))
is "${#bops[@]}" 5 "five back-to-back partition PATCHes answered"
ok "they append $grown bytes, under one list ($list bytes) for the five" \
	test "$grown" -lt "$list"
for o in "${bops[@]}"; do emu_wait_op "$o" >/dev/null || fail "PATCH $o finishes"; done
want_cl=$(curl -sS "$EMU_CLUSTERS/c1" | jq -S .)
want_ops=$(for o in "${bops[@]}"; do curl -sS "$EMU_URL/v1/$o" | jq -S .; done)
kill -9 "$EMU_PID"; wait "$EMU_PID" 2>/dev/null
EMU_DIR_NEXT=$dir EMU_LRO_SECONDS=0 emu_start || fail "restart after the back-to-back lines"
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -S .)" "$want_cl" "the cluster is rebuilt after back-to-back updates"
is "$(for o in "${bops[@]}"; do curl -sS "$EMU_URL/v1/$o" | jq -S .; done)" "$want_ops" \
	"each back-to-back update's response is rebuilt"
is "$(jq -r '.response.orchestratorSpec.slurmSpec.partitions[0].config.MaxTime' <<<"$(curl -sS "$EMU_URL/v1/${bops[0]}")")" \
	61 "... as that update left the cluster, not as the next one did"

# lists that keep some elements where they were: one removed in the
# middle, one added at the end, one inserted in front, one renamed; each
# rebuilt after a kill -9 as the emulator answered it
for edit in 'del(.[100])' '. + [{id: "tail", node_pool_ids: ["cpu"]}]' \
	'[{id: "head", node_pool_ids: ["cpu"]}] + .' '.[7].id = "renamed"'; do
	parts=$(jq -c "$edit" <<<"$parts")
	op=$(curl -sS -X PATCH --data-binary "$(jq -c '{orchestrator_spec: {slurm_spec: {partitions: .}}}' <<<"$parts")" \
		"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.partitions" | jq -r .name)
	emu_wait_op "$op" >/dev/null || fail "the PATCH $edit finishes"
done
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -c '.orchestratorSpec.slurmSpec.partitions | [length, .[0].id, .[7].id, .[101].id, .[-1].id]')" \
	'[201,"head","renamed","p101","tail"]' "the list edits were applied"
want_cl=$(curl -sS "$EMU_CLUSTERS/c1" | jq -S .)
kill -9 "$EMU_PID"; wait "$EMU_PID" 2>/dev/null
EMU_DIR_NEXT=$dir EMU_LRO_SECONDS=0 emu_start || fail "restart after the list edits"
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -S .)" "$want_cl" "the cluster is rebuilt after removing, adding, inserting and renaming"
is "$(grep -c "state journal" "$EMU_DIR/stderr")" 0 "... the load reporting no line it could not apply"

# a cut last line (a kill -9 during the append) is ignored
emu_stop
cp "$dir/state.json" "$TEST_DIR/snap"
printf '{"next_op":999,"put":{"cluster":{"%s":null' "projects/proj/locations/us-central1/modelDevelopmentClusters/c1" \
	>>"$dir/state.json.journal"
EMU_DIR_NEXT=$dir emu_start || fail "restart with a cut journal line"
is "$(curl -sS -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/c1")" 200 "a cut last journal line is ignored"

# a journal of an older snapshot is never replayed
emu_stop
gen=$(jq .gen "$dir/state.json")
printf '{"gen":%d}\n{"put":{"cluster":{"%s":null}}}\n' $((gen - 1)) \
	"projects/proj/locations/us-central1/modelDevelopmentClusters/c1" >"$dir/state.json.journal"
EMU_DIR_NEXT=$dir emu_start || fail "restart with a stale journal"
is "$(curl -sS -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/c1")" 200 "a journal of an older generation is not replayed"
# ... while the current generation's journal is
emu_stop
gen=$(jq .gen "$dir/state.json")
printf '{"gen":%d}\n{"put":{"cluster":{"%s":null}}}\n' "$gen" \
	"projects/proj/locations/us-central1/modelDevelopmentClusters/c1" >"$dir/state.json.journal"
EMU_DIR_NEXT=$dir emu_start || fail "restart with a journal"
is "$(curl -sS -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/c1")" 404 "the current generation's journal is replayed"
emu_create_cluster c1 >/dev/null || fail "create c1 again"

# left-over temporary files of a dead writer are removed at start
emu_stop
sleep 30 & dead=$!; kill "$dead"; wait "$dead" 2>/dev/null
echo junk >"$dir/state.json.tmp.$dead"
echo junk >"$dir/state.json.journal.tmp.$dead"
echo keep >"$dir/other.tmp.$dead"
EMU_DIR_NEXT=$dir EMU_LRO_SECONDS=0 emu_start || fail "restart with left-over files"
is "$(cd "$dir" && ls | grep -c '^state\.json.*\.tmp\.')" 0 "left-over state.json*.tmp.PID files are removed at start"
ok "other files are left alone" test -f "$dir/other.tmp.$dead"

# finished operations are kept up to a bound (1000), the newest ones
for ((k = 0; k < 11; k++)); do
	for ((m = 0; m < 100; m++)); do
		[ "$m" = 0 ] || echo next
		printf 'url = "%s/c1?updateMask=labels"\nrequest = "PATCH"\ndata = "{\\"labels\\":{\\"n\\":\\"%d\\"}}"\noutput = "/dev/null"\n' \
			"$EMU_CLUSTERS" $((k * 100 + m))
	done | curl -sS -K -
done
n=$(curl -sS "$EMU_URL/v1/$EMU_PARENT/operations" | jq '.operations | length')
ok "operations kept are bounded ($n after 1100 more)" test "$n" -le 1001
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -r .labels.n)" 1099 "... and the cluster has the last change"

# beyond the newest 16, a finished operation keeps its response as text
# (1000 responses of 200 partitions took 430 MB as json-c objects): every
# kept one still answers its own response, alone, in the list and after
# a restart, and 300 partition updates keep the emulator small
got=$(curl -sS "$EMU_URL/v1/$EMU_PARENT/operations?page_size=2000" |
	jq '[.operations[] | select(.response.labels.n != null) | .response.labels.n | tonumber] | [length, min, max]' | tr -d ' \n')
is "$got" "[1000,100,1099]" "the list answers every kept update's own response (the oldest ones' kept as text)"
old=$(curl -sS "$EMU_URL/v1/$EMU_PARENT/operations?page_size=2000" |
	jq -r '.operations[] | select(.response.labels.n == "150") | .name')
want=$(curl -sS "$EMU_URL/v1/$old" | jq -S .)
is "$(jq -r .response.labels.n <<<"$want")" 150 "an old operation alone answers its response"
kill -9 "$EMU_PID"; wait "$EMU_PID" 2>/dev/null
EMU_DIR_NEXT=$dir EMU_LRO_SECONDS=0 emu_start || fail "restart with responses kept as text"
is "$(curl -sS "$EMU_URL/v1/$old" | jq -S .)" "$want" "... the same after a restart"
for ((m = 0; m < 300; m++)); do
	[ "$m" = 0 ] || echo next
	printf 'url = "%s"\nrequest = "PATCH"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
		"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.partitions,orchestrator_spec.slurm_spec.default_partition_id"
	printf 'data = %s\n' "$(jq -c --arg t "$((m + 100))" '{orchestrator_spec: {slurm_spec:
		{partitions: (.[0].config.MaxTime = $t), default_partition_id: "p0"}}} | tojson' <<<"$parts")"
done >"$TEST_DIR/big.cfg"
is "$(curl -sS -K "$TEST_DIR/big.cfg" | sort | uniq -c | tr -s ' ')" " 300 200" "300 updates of 200 partitions answered"
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$EMU_PID/status")
if ldd "$(emu_bin)" 2>/dev/null | grep -q 'lib[at]san'; then
	skip "the emulator's memory after 300 updates" "a sanitizer build keeps freed memory ($rss KB)"
else
	ok "after 300 updates of 200 partitions the emulator holds $rss KB (under 100 MB)" test "$rss" -lt 102400
fi

# 1100 idle connections (more than select() can watch) do not lock a
# normal request out
ulimit -n 4096 2>/dev/null || ulimit -n "$(ulimit -Hn)"
port=${EMU_URL##*:}
opened=0
for ((k = 0; k < 1100; k++)); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null || break
	opened=$((opened + 1))
done
diag "$opened idle connections open"
is "$(curl -sS -m 10 -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/c1")" 200 \
	"a normal request is answered while $opened idle connections are open"
ok "the emulator is alive" kill -0 "$EMU_PID"
