#!/usr/bin/env bash
# mdc-emulator basics: ready line, create/get/list/delete, operations under
# /v1/ and /v1beta1/, lowerCamelCase answers, the request log.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 23
emu_up
like "$EMU_URL" '^http://127\.0\.0\.1:[0-9]+$' "ready line names the address"

op=$(emu_create_cluster c1)
is "$(jq -r .done <<<"$op")" true "create operation finishes"
is "$(jq -r '.metadata."@type"' <<<"$op")" \
	type.googleapis.com/google.cloud.aiplatform.v1beta1.CreateModelDevelopmentClusterOperationMetadata \
	"create metadata type"
is "$(jq -r '.response.name' <<<"$op")" "$EMU_PARENT/modelDevelopmentClusters/c1" "response is the cluster"
like "$(jq -r '.metadata.genericMetadata.createTime' <<<"$op")" '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T' "genericMetadata.createTime"

got=$(curl -s "$EMU_CLUSTERS/c1")
is "$(jq -r .state <<<"$got")" RUNNING "cluster is RUNNING"
is "$(jq -r '.orchestratorSpec.slurmSpec.defaultPartitionId' <<<"$got")" cpu "answers in lowerCamelCase"
is "$(jq -r 'has("orchestrator_spec")' <<<"$got")" false "no snake_case in the answer"
is "$(jq -c '[.nodePools[].nodeImage]' <<<"$got")" '["",""]' "never-updated cluster reports empty node_image (C11)"

# camelCase request bodies are accepted too
jq '{displayName, network, nodePools: .node_pools, orchestratorSpec: {slurmSpec: {homeDirectoryStorage: .orchestrator_spec.slurm_spec.home_directory_storage,
	partitions: [{id: "cpu", nodePoolIds: ["cpu"]}], loginNodePoolId: "login"}}}' \
	< <(emu_standard_cluster) >"$TEST_DIR/camel.json"
op=$(emu_create_cluster c2 "$TEST_DIR/camel.json")
is "$(jq -r '.response.orchestratorSpec.slurmSpec.loginNodePoolId' <<<"$op")" login "camelCase create accepted"

for id in c3 c4; do emu_create_cluster $id >/dev/null; done
page1=$(curl -s "$EMU_CLUSTERS?pageSize=3")
is "$(jq -c '[.modelDevelopmentClusters[].name | split("/")[-1]]' <<<"$page1")" '["c1","c2","c3"]' "list: first page"
tok=$(jq -r .nextPageToken <<<"$page1")
page2=$(curl -s "$EMU_CLUSTERS?pageSize=3&pageToken=$tok")
is "$(jq -c '[.modelDevelopmentClusters[].name | split("/")[-1]]' <<<"$page2")" '["c4"]' "list: second page"
is "$(jq -r 'has("nextPageToken")' <<<"$page2")" false "list: last page has no nextPageToken"
code=$(curl -s -o "$TEST_DIR/bad" -w '%{http_code}' "$EMU_CLUSTERS?pageToken=zz")
is "$code $(jq -r .error.status "$TEST_DIR/bad")" "400 INVALID_ARGUMENT" "list: bad pageToken"

# DELETE: an LRO; polled under /v1beta1/ this time
op=$(curl -s -X DELETE "$EMU_CLUSTERS/c4")
name=$(jq -r .name <<<"$op")
like "$name" "^projects/[0-9]{12}/locations/us-central1/operations/[0-9]+$" "delete returns an operation, named with the project number"
sleep 0.3
done_op=$(curl -s "$EMU_URL/v1beta1/$name")
is "$(jq -r .done <<<"$done_op")" true "operation GET under /v1beta1/"
code=$(curl -s -o "$TEST_DIR/gone" -w '%{http_code}' "$EMU_CLUSTERS/c4")
is "$code $(jq -r .error.status "$TEST_DIR/gone")" "404 NOT_FOUND" "deleted cluster is gone"
like "$(jq -r .error.message "$TEST_DIR/gone")" "modelDevelopmentClusters/c4' not found" "not-found message names the cluster"
is "$(jq -r '.error.details[0]."@type"' "$TEST_DIR/gone")" type.googleapis.com/google.rpc.ErrorInfo "error has ErrorInfo detail"

code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$EMU_CLUSTERS?model_development_cluster_id=c1" --data-binary @"$TEST_DIR/emu-cluster-c1.json")
is "$code" 409 "creating an existing cluster: 409 ALREADY_EXISTS"

# request log: exactly what was sent
line=$(grep '"method":"POST"' "$EMU_LOG" | head -1)
is "$(jq -c '[.path, .query.model_development_cluster_id, .body.node_pools[0].id]' <<<"$line")" \
	"[\"/$EMU_API/$EMU_PARENT/modelDevelopmentClusters\",\"c1\",\"cpu\"]" "request log records path, query and body"
is "$(grep -c '"path":"/v1beta1/'"$EMU_PARENT"'/modelDevelopmentClusters/c1"' "$EMU_LOG")" 1 "one GET of c1 logged"
ops=$(curl -s "$EMU_URL/v1/$EMU_PARENT/operations")
is "$(jq -r '[.operations[].name | split("/")[-1] | tonumber] | sort | .[0:2] | join(",")' <<<"$ops")" "1,2" "operations list"
