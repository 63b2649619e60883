#!/usr/bin/env bash
# 32 concurrent clients against one emulator for a bounded time: 16 writers
# PATCH their own cluster (and race on a shared one), 16 readers GET and
# list clusters and the operations being finished meanwhile (the path that
# crashed: an answer walked a stored operation after the lock was released).
# No crash, no 5xx, no sanitizer report, no lost update: every change that
# was answered 200 is in the cluster at the end.  The sanitizer stage runs
# this against a ThreadSanitizer build (scripts/test --sanitize).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

secs=${MDC_EMU_STRESS_SECONDS:-10}
W=16 R=16
plan 8
EMU_LRO_SECONDS=0.05 emu_up
# the clusters are created together; their operations end with the next tick
emu_standard_cluster >"$TEST_DIR/c.json"
for id in shared $(seq -f 'w%g' 1 $W); do
	printf 'url = "%s?model_development_cluster_id=%s"\ndata-binary = "@%s"\noutput = "/dev/null"\nnext\n' \
		"$EMU_CLUSTERS" "$id" "$TEST_DIR/c.json"
done | sed '$d' | curl -sS -K -
for ((i = 0; i < 100; i++)); do
	[ "$(emu_curl "$EMU_CLUSTERS?pageSize=100" |
		jq '[.modelDevelopmentClusters[] | select(.state == "RUNNING")] | length')" = $((W + 1)) ] && break
	sleep 0.1
done

d=$TEST_DIR/run
mkdir -p "$d"
# writer I: labels.n = 1, 2, ... on cluster wI, in batches of 10 over one
# connection (curl -K); each accepted value and its operation are recorded;
# a 409 (the previous operation still runs) just moves on.  Every tenth
# request races the other writers on the shared cluster.
writer() {
	local i=$1 k=1 n end=$((SECONDS + secs)) cfg=$d/w$1.cfg code
	trap - EXIT	# the test's cleanup is not this subshell's
	while [ "$SECONDS" -lt "$end" ]; do
		for ((n = k; n < k + 10; n++)); do
			[ "$n" = "$k" ] || echo next
			printf 'url = "%s/w%d?updateMask=labels"\nrequest = "PATCH"\n' "$EMU_CLUSTERS" "$i"
			printf 'data = "{\\"labels\\":{\\"n\\":\\"%d\\"}}"\noutput = "%s/w%d.%d"\n' "$n" "$d" "$i" "$n"
			printf 'write-out = "%%{http_code}\\n"\n'
		done >"$cfg"
		printf 'next\nurl = "%s/shared?updateMask=labels"\nrequest = "PATCH"\n' "$EMU_CLUSTERS" >>"$cfg"
		printf 'data = "{\\"labels\\":{\\"w\\":\\"%d\\"}}"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
			"$i" >>"$cfg"
		curl -sS -K "$cfg" >"$cfg.codes" 2>>"$d/w$i.err"
		cat "$cfg.codes" >>"$d/w$i.codes"
		n=$k
		while read -r code; do
			if [ "$n" -lt $((k + 10)) ] && [ "$code" = 200 ]; then
				jq -r .name "$d/w$i.$n" >>"$d/w$i.ops"
				echo "$n" >"$d/w$i.acked"
			fi
			n=$((n + 1))
		done <"$cfg.codes"
		k=$((k + 10))
	done
}
# reader J: batches of 30 GETs over one connection: operations by number
# (some being finished right now, some long gone: 200 or 404), clusters,
# the cluster and operation lists
reader() {
	local j=$1 m end=$((SECONDS + secs)) cfg=$d/r$1.cfg top
	trap - EXIT
	while [ "$SECONDS" -lt "$end" ]; do
		top=$(cat "$d"/w*.ops 2>/dev/null | sed 's|.*/||' | sort -n | tail -n 1)
		top=${top:-1}
		for ((m = 0; m < 10; m++)); do
			[ "$m" = 0 ] || echo next
			printf 'url = "%s/v1/%s/operations/%d"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
				"$EMU_URL" "$EMU_PARENT" $((top - m + 2))
			printf 'next\nurl = "%s/w%d"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
				"$EMU_CLUSTERS" $(((j + m) % W + 1))
			if [ $((m % 2)) = 0 ]; then
				printf 'next\nurl = "%s?pageSize=5"\n' "$EMU_CLUSTERS"
			else
				printf 'next\nurl = "%s/v1/%s/operations"\n' "$EMU_URL" "$EMU_PARENT"
			fi
			printf 'output = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n'
		done >"$cfg"
		curl -sS -K "$cfg" >>"$d/r$j.codes" 2>>"$d/r$j.err"
	done
}
pids=()
for ((i = 1; i <= W; i++)); do writer "$i" & pids+=($!); done
for ((j = 1; j <= R; j++)); do reader "$j" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done

ok "the emulator is alive after ${secs}s of $((W + R)) concurrent clients" kill -0 "$EMU_PID"
codes=$(cat "$d"/w*.codes | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')
diag "writer answers: $codes"
is "$(cat "$d"/w*.codes | grep -cv '^\(200\|409\)$')" 0 "writers got only 200 or 409 ABORTED (busy)"
is "$(cat "$d"/r*.codes | grep -cv '^\(200\|404\)$')" 0 \
	"every read answered 200 (or 404 for an operation not yet started): $(cat "$d"/r*.codes | wc -l) reads"
is "$(cat "$d"/w*.err "$d"/r*.err 2>/dev/null | head -3)" "" "no connection error"
acked=$(cat "$d"/w*.acked 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
ok "writers had changes accepted ($acked in all)" test "$acked" -ge "$W"

# let the last operations end: then every writer's last accepted value is there
for ((i = 0; i < 100; i++)); do
	emu_curl "$EMU_CLUSTERS?pageSize=100" >"$TEST_DIR/final.json"
	[ "$(jq '[.modelDevelopmentClusters[] | select(.state != "RUNNING")] | length' "$TEST_DIR/final.json")" = 0 ] && break
	sleep 0.1
done
lost=0
for ((i = 1; i <= W; i++)); do
	want=$(cat "$d/w$i.acked" 2>/dev/null || echo none)
	got=$(jq -r --arg n "w$i" '.modelDevelopmentClusters[] | select(.name | endswith("/" + $n)) |
		.labels.n // "none"' "$TEST_DIR/final.json")
	[ "$got" = "$want" ] || { diag "w$i: accepted n=$want, the cluster has n=$got"; lost=$((lost + 1)); }
done
is "$lost" 0 "no lost update: each cluster has its writer's last accepted value"
# every accepted operation of the writers (the last 30 kept) ended without error
errs=0
for op in $(cat "$d"/w*.ops | sed 's|.*/||' | sort -n | tail -n 30); do
	printf 'url = "%s/v1/%s/operations/%s"\n' "$EMU_URL" "$EMU_PARENT" "$op"
done | curl -sS -K - >"$TEST_DIR/ops.json"
is "$(jq -s '[.[] | select(.done != true or .error != null)] | length' "$TEST_DIR/ops.json")" 0 \
	"the last 30 accepted operations are all done without error"
emu_stop
is "$(grep -c 'ThreadSanitizer\|AddressSanitizer\|runtime error' "$EMU_DIR/stderr")" 0 \
	"no sanitizer report from the emulator"
