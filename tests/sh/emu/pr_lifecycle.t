#!/usr/bin/env bash
# Persistent resource lifecycle in the emulator through mdcctl: create
# (PROVISIONING while the operation runs, then RUNNING), list, describe,
# reboot (REBOOTING -> RUNNING), delete (STOPPING -> gone), --async, a
# failed operation (ERROR), and the real field names and enums in answers.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq not installed"
emu_pr_env
NAME=projects/proj/locations/us-central1/persistentResources/life-pr

plan 21

m() { mdcctl --endpoint "$EMU_URL" "$@"; }
state() { curl -sS "$EMU_URL/v1/$NAME" | jq -r '.state // .error.status'; }
# held operations do not finish, so intermediate states are seen without
# racing the clock
hold() {
	curl -sS -X POST -H 'Content-Type: application/json' --data "{\"hold\": $1}" \
		"$EMU_URL/emulator/v1/operations:hold" >/dev/null
}

hold true
out=$(m persistent-resources create "${G[@]}" --persistent-resource-id=life-pr --async \
	--resource-pool-spec=replica-count=2,machine-type=n1-standard-4 \
	--resource-pool-spec=id=gpu,machine-type=n1-standard-8,min-replica-count=1,max-replica-count=2,accelerator-type=NVIDIA_TESLA_T4,accelerator-count=2 \
	--enable-custom-service-account --labels env=test 2>&1)
is "$?" 0 "create --async returns at once"
op=$(printf '%s\n' "$out" | sed -n 's/.*\$ mdcctl operations describe //p')
like "$op" "^$NAME/operations/[0-9]+$" "the operation is scoped to the resource"
is "$(state)" PROVISIONING "PROVISIONING while the operation runs"
hold false
opjson=$(emu_wait_op "$op")
is "$(printf '%s' "$opjson" | jq -r .metadata[\"@type\"])" \
	"type.googleapis.com/google.cloud.aiplatform.v1.CreatePersistentResourceOperationMetadata" \
	"the operation metadata is CreatePersistentResourceOperationMetadata"
is "$(printf '%s' "$opjson" | jq -r '.response["@type"] + " " + .response.state')" \
	"type.googleapis.com/google.cloud.aiplatform.v1.PersistentResource RUNNING" \
	"the operation's response is the RUNNING PersistentResource"
is "$(state)" RUNNING "RUNNING once the operation is done"

# the answer uses the proto's field names in lowerCamelCase
res=$(curl -sS "$EMU_URL/v1beta1/$NAME")
is "$(printf '%s' "$res" | jq -c '[.resourcePools[1] | .id, .machineSpec.acceleratorType, .machineSpec.acceleratorCount, .autoscalingSpec.minReplicaCount, .autoscalingSpec.maxReplicaCount]')" \
	'["gpu","NVIDIA_TESLA_T4",2,"1","2"]' \
	"pools keep their fields, int64 as strings like the service (v1beta1 GET)"
is "$(printf '%s' "$res" | jq -r .resourceRuntimeSpec.serviceAccountSpec.enableCustomServiceAccount)" \
	true "resourceRuntimeSpec.serviceAccountSpec.enableCustomServiceAccount"
like "$(printf '%s' "$res" | jq -r '.createTime + " " + .startTime')" \
	"^20[0-9-]+T[0-9:.]+Z 20[0-9-]+T[0-9:.]+Z$" "createTime and startTime are RFC 3339"
like "$(printf '%s' "$res" | jq -r .resourcePools[0].id)" "." "the service names a pool given no id"

out=$(m persistent-resources list "${G[@]}")
like "$out" "life-pr +RUNNING +- +2 x n1-standard-4; 1-2 x n1-standard-8 \+ 2 NVIDIA_TESLA_T4" "list summarises the pools"
is "$(m persistent-resources describe life-pr "${G[@]}" | jq -r '.name + " " + .labels.env')" \
	"$NAME test" "describe prints the resource as JSON"

hold true
m persistent-resources reboot life-pr "${G[@]}" --async >/dev/null 2>&1
is "$(state)" REBOOTING "reboot: REBOOTING while the operation runs"
like "$(jq -r 'select(.method == "POST") | .path' "$EMU_LOG" | tail -1)" ":reboot$" "reboot POSTs :reboot"
out=$(m persistent-resources reboot life-pr "${G[@]}" 2>&1)
like "$out" "only a RUNNING resource can be rebooted" "rebooting a REBOOTING resource is FAILED_PRECONDITION"
hold false
wait_until 30 sh -c "[ \"\$(curl -sS '$EMU_URL/v1/$NAME' | jq -r .state)\" = RUNNING ]"
is "$(state)" RUNNING "RUNNING again after the reboot"

out=$(m persistent-resources delete life-pr "${G[@]}" </dev/null 2>&1)
like "$out" "not deleting .*give --yes" "delete without a terminal asks for --yes and sends nothing"
out=$(m persistent-resources delete life-pr "${G[@]}" --yes 2>&1)
like "$out" "Deleted persistent resource \[$NAME\]" "delete --yes waits for the operation"
is "$(state)" NOT_FOUND "the resource is gone"
out=$(m persistent-resources describe life-pr "${G[@]}" 2>&1)
like "$out" "persistent resource '$NAME' not found" "describe of a deleted resource says so"

# an operation that fails leaves the resource in ERROR
emu_stop
EMU_LRO_SECONDS=0.2 EMU_STATE= EMU_LOG= emu_start --fault operation:fail || true
out=$(m persistent-resources create "${G[@]}" --persistent-resource-id=bad-pr \
	--resource-pool-spec=replica-count=1,machine-type=n1 --enable-custom-service-account 2>&1)
is "$(curl -sS "$EMU_URL/v1/projects/proj/locations/us-central1/persistentResources/bad-pr" | jq -r .state)/$(printf '%s\n' "$out" | grep -c "error: operation '.*/bad-pr/operations/[0-9]*' failed")" \
	"ERROR/1" "a failed create operation: the command fails and the resource is ERROR"
