#!/usr/bin/env bash
# Fault injection (--fault, --seed) and the request log, for the client's
# reliability tests.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 16
codes() {	# N sequential GETs of c1: their status codes on one line
	local i
	for ((i = 0; i < $1; i++)); do
		curl -s -o /dev/null -w '%{http_code} ' "$EMU_CLUSTERS/c1"
	done
}

emu_up --fault GET:503:0.3 --seed 7
EMU_CLUSTERS_SAVED=$EMU_CLUSTERS
op=$(curl -s -X POST --data-binary "$(emu_standard_cluster)" "$EMU_CLUSTERS?model_development_cluster_id=c1")
sleep 0.4
run1=$(codes 60)
n503=$(tr ' ' '\n' <<<"$run1" | grep -c 503)
ok "GET:503:0.3 fails some GETs ($n503 of 60)" test "$n503" -ge 6 -a "$n503" -le 35
is "$(tr ' ' '\n' <<<"$run1" | grep -c 200)" $((60 - n503)) "... and answers the others"
body=$(for i in 1 2 3 4 5 6 7 8 9 10; do curl -s "$EMU_CLUSTERS/c1"; done | jq -s -r '[.[] | select(.error)][0].error | "\(.code) \(.status)"')
is "$body" "503 UNAVAILABLE" "an injected 503 has a Google error body"
is "$(grep -c '"method":"GET"' "$EMU_LOG")" 70 "every request is logged, failed or not"
emu_stop

# same seed, same sequence
emu_start --fault GET:503:0.3 --seed 7
curl -s -X POST --data-binary "$(emu_standard_cluster)" "$EMU_CLUSTERS?model_development_cluster_id=c1" >/dev/null
sleep 0.4
is "$(codes 60)" "$run1" "the same --seed repeats the same faults"
emu_stop

emu_start --fault PATCH:429:1 --fault DELETE:drop:1 --fault GET:latency:300
emu_create_cluster c1 >/dev/null
curl -s -D "$TEST_DIR/h" -o "$TEST_DIR/b" -X PATCH --data-binary '{"labels":{}}' "$EMU_CLUSTERS/c1?updateMask=labels"
like "$(head -1 "$TEST_DIR/h")" "^HTTP/1.1 429" "PATCH:429:1 answers 429"
like "$(tr -d '\r' <"$TEST_DIR/h" | grep -i '^retry-after:')" "^[Rr]etry-[Aa]fter: 1$" "... with Retry-After"
is "$(jq -r '.error.status' "$TEST_DIR/b")" RESOURCE_EXHAUSTED "... status RESOURCE_EXHAUSTED"
is "$(jq -r '.error.details[] | select(."@type" == "type.googleapis.com/google.rpc.RetryInfo") | .retryDelay' "$TEST_DIR/b")" 1s \
	"... and a RetryInfo detail"
is "$(curl -s "$EMU_CLUSTERS/c1" | jq -r .labels.team)" ml "the faulted PATCH changed nothing"
curl -s -o /dev/null -X DELETE "$EMU_CLUSTERS/c1"
is "$?" 52 "DELETE:drop:1 closes the connection without an answer (curl: empty reply)"
is "$(curl -s "$EMU_CLUSTERS/c1" | jq -r .state)" RUNNING "... and did nothing"
t=$(curl -s -o /dev/null -w '%{time_total}' "$EMU_CLUSTERS/c1")
ok "GET:latency:300 delays the answer (${t}s)" awk -v t="$t" 'BEGIN { exit !(t >= 0.29) }'
is "$(tail -1 "$EMU_LOG" | jq -c '[.method, .body]')" '["GET",null]' "request log: GET has a null body"
is "$(grep '"method":"PATCH"' "$EMU_LOG" | jq -c '[.query, .body]')" '[{"updateMask":"labels"},{"labels":{}}]' \
	"request log: the faulted PATCH as sent"
nok "an invalid --fault spec is refused" "$top_builddir/mdc-emulator" --listen 127.0.0.1:0 --fault GET:nope:1
