#!/usr/bin/env bash
# --state: written atomically after each change; a restarted emulator keeps
# its clusters, operations and images.  Many concurrent clients are safe.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 12
emu_up
first=$EMU_DIR
emu_create_cluster c1 >/dev/null
op=$(curl -s -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":"77"}}}}' \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.config")
opname=$(jq -r .name <<<"$op")
emu_wait_op "$opname" >/dev/null
curl -s -X POST --data-binary '{"machineType":"n2-standard-8","image":"img-keep"}' "$EMU_URL/emulator/v1/images:advance" >/dev/null
ok "state file is valid JSON" jq -e .store "$EMU_STATE"
is "$(ls "$EMU_DIR" | grep -c '\.tmp\.')" 0 "no temporary file left beside the state"

emu_stop
ok "the emulator stopped on SIGTERM" test -z "$(jobs -rp)"
EMU_DIR_NEXT=$first emu_start || fail "restart"
is "$(curl -s "$EMU_CLUSTERS/c1" | jq -r .orchestratorSpec.slurmSpec.config.PriorityWeightAge)" 77 "restarted: the cluster is kept"
is "$(curl -s "$EMU_URL/v1/$opname" | jq -r .response.orchestratorSpec.slurmSpec.config.PriorityWeightAge)" 77 "restarted: the operation is kept"
is "$(curl -s "$EMU_URL/emulator/v1/images" | jq -r '."n2-standard-8"')" img-keep "restarted: the image table is kept"
# operation numbers keep increasing
op=$(curl -s -X PATCH --data-binary '{"labels":{"x":"1"}}' "$EMU_CLUSTERS/c1?updateMask=labels")
isnt "$(jq -r .name <<<"$op")" "$opname" "restarted: new operations get new names"
emu_wait_op "$(jq -r .name <<<"$op")" >/dev/null

# an operation still running at shutdown finishes after the restart
op=$(curl -s -X PATCH --data-binary '{"labels":{"x":"2"}}' "$EMU_CLUSTERS/c1?updateMask=labels")
emu_stop
EMU_DIR_NEXT=$first emu_start || fail "restart 2"
is "$(emu_wait_op "$(jq -r .name <<<"$op")" | jq -r .response.labels.x)" 2 "an operation pending at shutdown completes after restart"

# concurrency: 40 parallel creates of distinct clusters + 40 GETs + PATCH races
for i in $(seq 1 40); do
	curl -s -o "$TEST_DIR/p$i" -X POST --data-binary "$(emu_standard_cluster)" \
		"$EMU_CLUSTERS?model_development_cluster_id=k$i" &
	curl -s -o "$TEST_DIR/g$i" "$EMU_CLUSTERS/c1" &
done
wait_jobs() { local p; for p in $(jobs -rp); do [ "$p" = "$EMU_PID" ] || wait "$p"; done; }
wait_jobs
n=$(cat "$TEST_DIR"/p* | jq -s '[.[] | select(.name | test("/operations/"))] | length')
is "$n" 40 "40 concurrent creates all answered with an operation"
is "$(cat "$TEST_DIR"/g* | jq -s '[.[] | select(.name | endswith("/c1"))] | length')" 40 "40 concurrent GETs all answered"
# the race needs operations that outlast the ten requests: hold them
sleep 0.3
curl -s -X POST --data-binary '{"hold":true}' "$EMU_URL/emulator/v1/operations:hold" >/dev/null
for i in $(seq 1 10); do
	curl -s -o "$TEST_DIR/x$i" -w '%{http_code}\n' -X PATCH --data-binary "{\"labels\":{\"n\":\"$i\"}}" \
		"$EMU_CLUSTERS/k1?updateMask=labels" >"$TEST_DIR/code$i" &
done
wait_jobs
is "$(cat "$TEST_DIR"/code* | sort | uniq -c | awk '{print $2":"$1}' | tr '\n' ' ')" "200:1 409:9 " \
	"10 racing PATCHes: exactly one accepted, nine 409 ABORTED"
curl -s -X POST --data-binary '{"hold":false}' "$EMU_URL/emulator/v1/operations:hold" >/dev/null
is "$(curl -s "$EMU_CLUSTERS?pageSize=100" | jq '.modelDevelopmentClusters | length')" 41 "all 41 clusters listed"
