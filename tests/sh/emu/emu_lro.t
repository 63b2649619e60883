#!/usr/bin/env bash
# Long-running operations: --lro-seconds, state UPDATING meanwhile, a
# second mutating request is 409 ABORTED, the finished operation's shape,
# and --fault operation:fail.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 17
EMU_LRO_SECONDS=1 emu_up
emu_create_cluster c1 >/dev/null || { fail "create c1"; exit 1; }
# hold operations so the requests below land while one runs, however
# busy the machine is
hold() { curl -s -X POST --data-binary "{\"hold\":$1}" "$EMU_URL/emulator/v1/operations:hold" >/dev/null; }
hold true

op=$(curl -s -X PATCH --data-binary '{"labels":{"a":"1"}}' "$EMU_CLUSTERS/c1?updateMask=labels")
name=$(jq -r .name <<<"$op")
is "$(jq -r .done <<<"$op")" false "a fresh operation is not done"
is "$(curl -s "$EMU_CLUSTERS/c1" | jq -r .state)" UPDATING "the cluster is UPDATING meanwhile"
is "$(curl -s "$EMU_CLUSTERS/c1" | jq -r .labels.team)" ml "the old spec is served until the operation ends"
code=$(curl -s -o "$TEST_DIR/r" -w '%{http_code}' -X PATCH --data-binary '{"labels":{}}' "$EMU_CLUSTERS/c1?updateMask=labels")
is "$code $(jq -r .error.status "$TEST_DIR/r")" "409 ABORTED" "a second PATCH meanwhile: 409 ABORTED"
like "$(jq -r .error.message "$TEST_DIR/r")" "is UPDATING: another operation is in progress" "... saying why"
code=$(curl -s -o "$TEST_DIR/r" -w '%{http_code}' -X DELETE "$EMU_CLUSTERS/c1")
is "$code" 409 "a DELETE meanwhile: 409"
hold false
done_op=$(emu_wait_op "$name")
is "$(jq -r .done <<<"$done_op")" true "the operation finishes"
is "$(jq -r '.response.labels.a' <<<"$done_op")" 1 "response is the updated cluster"
is "$(jq -r '.response."@type"' <<<"$done_op")" type.googleapis.com/google.cloud.aiplatform.v1beta1.ModelDevelopmentCluster "response @type"
is "$(jq -r '.metadata."@type"' <<<"$done_op")" type.googleapis.com/google.cloud.aiplatform.v1beta1.UpdateModelDevelopmentClusterOperationMetadata "metadata @type"
is "$(jq -r '.metadata | has("progressMessage") and (.genericMetadata | has("createTime") and has("updateTime"))' <<<"$done_op")" true \
	"metadata has progressMessage and genericMetadata{createTime,updateTime}"
is "$(jq -r 'has("error")' <<<"$done_op")" false "no error on success"
is "$(curl -s "$EMU_CLUSTERS/c1" | jq -r '"\(.state) \(.labels.a)"')" "RUNNING 1" "afterwards the cluster is RUNNING with the change"
code=$(curl -s -o /dev/null -w '%{http_code}' "$EMU_URL/v1/projects/proj/locations/us-central1/operations/999")
is "$code" 404 "unknown operation: 404"

# --fault operation:fail: the operation ends in error, nothing changes
emu_stop
emu_start --fault operation:fail || fail "second emulator starts"
# an emulator that fails every operation cannot create a cluster either
op=$(curl -s -X POST --data-binary "$(emu_standard_cluster)" "$EMU_CLUSTERS?model_development_cluster_id=f1")
done_op=$(emu_wait_op "$(jq -r .name <<<"$op")")
is "$(jq -c '[.done, .error.code, (.error.message | test("operation failed"))]' <<<"$done_op")" '[true,13,true]' \
	"operation:fail: done with an error (code, message)"
is "$(jq -r 'has("response")' <<<"$done_op")" false "... and no response"
# as on the service, an accepted create that fails keeps the cluster, in ERROR
got=$(curl -s -w '\n%{http_code}' "$EMU_CLUSTERS/f1")
is "${got##*$'\n'} $(jq -c '[.clusterStatus.state, .clusterStatus.error.code]' <<<"${got%$'\n'*}")" '200 ["ERROR",13]' \
	"... a failed create leaves the cluster in ERROR with the operation's error"
