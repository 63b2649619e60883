#!/usr/bin/env bash
# UpdatePersistentResource (v1beta1 and v1 PATCH with update_mask): the
# UPDATING state while the operation runs, the update mask the proto allows
# (immutable and output-only fields refused naming them, pools matched by
# id, machine_spec immutable), a failed update leaving the resource as it
# was; the location-scoped operation name gcloud prints and the project
# number in resource names, through curl and through mdcctl
# (persistent-resources update, operations describe|wait).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq not installed"
emu_pr_env
LOC=projects/proj/locations/us-central1
NAME=$LOC/persistentResources/up-pr

plan 37

m() { mdcctl --endpoint "$EMU_URL" "$@"; }
get() { curl -sS "$EMU_URL/v1beta1/$NAME"; }
state() { get | jq -r '.state // .error.status'; }
hold() {
	curl -sS -X POST -H 'Content-Type: application/json' --data "{\"hold\": $1}" \
		"$EMU_URL/emulator/v1/operations:hold" >/dev/null
}
# patch MASK BODY: the answer of a raw PATCH, as "HTTP-code body"
patch() {
	curl -sS -o "$TEST_DIR/patch.json" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
		--data "$2" "$EMU_URL/v1beta1/$NAME${1:+?updateMask=$1}"
}
running() { [ "$(state)" = RUNNING ]; }

ok "create a resource with two pools" \
	m persistent-resources create "${G[@]}" --persistent-resource-id=up-pr \
	--resource-pool-spec=id=cpu,replica-count=1,machine-type=n1-standard-4 \
	--resource-pool-spec=id=gpu,machine-type=n1-standard-8,min-replica-count=1,max-replica-count=2,accelerator-type=NVIDIA_TESLA_T4 \
	--enable-custom-service-account --labels=team=ml,env=dev --display-name=Before

# --- the raw API ---------------------------------------------------------------
hold true
code=$(patch "resourcePools" '{"resourcePools":[{"id":"cpu","replicaCount":"3"},{"id":"gpu","autoscalingSpec":{"minReplicaCount":"2","maxReplicaCount":"4"}}]}')
op=$(jq -r .name "$TEST_DIR/patch.json")
is "$code $(jq -r '.metadata["@type"]' "$TEST_DIR/patch.json")" \
	"200 type.googleapis.com/google.cloud.aiplatform.v1beta1.UpdatePersistentResourceOperationMetadata" \
	"PATCH answers an LRO with UpdatePersistentResourceOperationMetadata"
like "$op" "^$NAME/operations/[0-9]+$" "the operation is scoped to the resource"
is "$(state)" UPDATING "UPDATING while the operation runs"
code=$(patch "displayName" '{"displayName":"x"}')
is "$code $(jq -r .error.status "$TEST_DIR/patch.json")" "400 FAILED_PRECONDITION" \
	"a second update while UPDATING is refused"
hold false
opjson=$(emu_wait_op "$op")
is "$(printf '%s' "$opjson" | jq -r '.response["@type"] + " " + .response.state')" \
	"type.googleapis.com/google.cloud.aiplatform.v1beta1.PersistentResource RUNNING" \
	"the operation's response is the RUNNING resource"
is "$(get | jq -c '[.state, .resourcePools[0].replicaCount, .resourcePools[1].autoscalingSpec, .resourcePools[1].machineSpec.acceleratorType, .displayName]')" \
	'["RUNNING","3",{"minReplicaCount":"2","maxReplicaCount":"4"},"NVIDIA_TESLA_T4","Before"]' \
	"only the masked field changed: pools resized, machines and display name kept"

# the location-scoped name of the same operation, and the project number
opid=${op##*/}
is "$(curl -sS "$EMU_URL/v1/$LOC/operations/$opid" | jq -r '.name + " " + (.done|tostring)')" \
	"$op true" "the location-scoped operation name resolves (GET $LOC/operations/$opid)"
num=$(curl -sS "$EMU_URL/emulator/v1/projects/proj" | jq -r .projectNumber)
like "$num" "^[1-9][0-9]{11}$" "the emulator gives the project a stable 12-digit number"
is "$(curl -sS "$EMU_URL/emulator/v1/projects/$num" | jq -r .projectId)" proj "and maps it back"
is "$(curl -sS "$EMU_URL/v1/projects/$num/locations/us-central1/persistentResources/up-pr" | jq -r .name)" \
	"$NAME" "a resource name with the project number reads the same resource"
is "$(curl -sS "$EMU_URL/v1/projects/$num/locations/us-central1/operations/$opid" | jq -r .done)" true \
	"an operation name with the project number resolves"
code=$(curl -sS -o /dev/null -w '%{http_code}' "$EMU_URL/v1/projects/123456789012/locations/us-central1/persistentResources/up-pr")
is "$code" 404 "an unknown project number finds nothing"

# what the mask may name (the v1beta1 proto's field behaviours)
code=$(patch "" '{"displayName":"x"}')
is "$code $(jq -r '.error.details[1].fieldViolations[0].field' "$TEST_DIR/patch.json")" "400 update_mask" \
	"update_mask is required (REQUIRED in UpdatePersistentResourceRequest)"
code=$(patch "network" '{"network":"projects/1/global/networks/n"}')
like "$code $(jq -r .error.message "$TEST_DIR/patch.json")" "^400 update_mask: 'network' is immutable" \
	"an immutable field is refused, naming it"
code=$(patch "state" '{"state":"ERROR"}')
like "$code $(jq -r .error.message "$TEST_DIR/patch.json")" "^400 update_mask: 'state' is output only" \
	"an output-only field is refused, naming it"
code=$(patch "colour" '{}')
like "$code $(jq -r .error.message "$TEST_DIR/patch.json")" "^400 update_mask: 'colour' is not a field" \
	"an unknown mask path is refused"
code=$(patch "resourcePools" '{"resourcePools":[{"id":"cpu","replicaCount":"1"}]}')
like "$code $(jq -r .error.message "$TEST_DIR/patch.json")" "^400 .*pools cannot be added or removed" \
	"leaving a pool out (removing it) is refused"
code=$(patch "resource_pools" '{"resourcePools":[{"id":"cpu","replicaCount":"1","machineSpec":{"machineType":"n1-standard-8"}},{"id":"gpu","replicaCount":"1"}]}')
like "$code $(jq -r .error.message "$TEST_DIR/patch.json")" "^400 .*pool 'cpu'.*machine_spec is immutable" \
	"changing a pool's machine type is refused (snake_case mask path accepted)"
code=$(patch "resourcePools" '{"resourcePools":[{"id":"cpu","replicaCount":"1"},{"id":"tpu","replicaCount":"1"}]}')
like "$code $(jq -r .error.message "$TEST_DIR/patch.json")" "^400 .*no pool 'tpu'" "an unknown pool id is refused"
is "$(get | jq -c '[.state, .resourcePools[0].replicaCount, .displayName]')" '["RUNNING","3","Before"]' \
	"no refused request changed anything"
code=$(patch "labels,displayName" '{"labels":{"team":"infra"}}')
is "$code $(emu_wait_op "$(jq -r .name "$TEST_DIR/patch.json")" | jq -c '[.response.labels, .response.displayName]')" \
	'200 [{"team":"infra"},null]' "a masked field left out of the body is cleared (FieldMask semantics)"
code=$(curl -sS -o "$TEST_DIR/patch.json" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
	--data '{"displayName":"Via v1 and the number"}' \
	"$EMU_URL/v1/projects/$num/locations/us-central1/persistentResources/up-pr?update_mask=display_name")
emu_wait_op "$(jq -r .name "$TEST_DIR/patch.json")" >/dev/null
is "$code $(get | jq -r .displayName)" "200 Via v1 and the number" \
	"v1 PATCH on a project-number name updates the same resource"

# --- mdcctl -----------------------------------------------------------------------
out=$(m persistent-resources update up-pr "${G[@]}" --resource-pool-spec=id=gpu,min-replica-count=1,max-replica-count=8 \
	--update-labels=env=prod --remove-labels=team --display-name=After 2>&1)
like "$out" "Updated persistent resource \[$NAME\] \(displayName,labels,resourcePools\)" \
	"mdcctl persistent-resources update waits for the operation"
is "$(jq -c 'select(.method == "PATCH") | [.query.updateMask, .body.display_name, .body.labels, (.body.resource_pools | map(.id))]' "$EMU_LOG" | tail -1)" \
	'["displayName,labels,resourcePools","After",{"env":"prod"},["cpu","gpu"]]' \
	"it sends one PATCH: the mask it built, the labels merged, every pool by id"
is "$(get | jq -c '[.displayName, .labels, .resourcePools[1].autoscalingSpec.maxReplicaCount, .resourcePools[0].replicaCount]')" \
	'["After",{"env":"prod"},"8","3"]' "the resource shows the change"
writes() { jq -r 'select(.method != "GET") | .method' "$EMU_LOG" | wc -l; }
w1=$(writes)
out=$(m persistent-resources update up-pr "${G[@]}" --resource-pool-spec=id=gpu,machine-type=a2-highgpu-1g 2>&1)
rc=$?
is "$rc $out" "$EXIT_USAGE mdcctl: error: --resource-pool-spec: 'machine-type' cannot be changed by update: give id= and replica-count, or min-replica-count and max-replica-count" \
	"a machine type change is refused before anything is sent"
out=$(m persistent-resources update --persistent-resource-id=up-pr "${G[@]}" --display-name=x 2>&1)
rc=$?
is "$rc $out" "$EXIT_USAGE mdcctl: error: persistent-resources update: give the persistent resource (ID or full name) as an argument, not as --persistent-resource-id (see mdcctl persistent-resources update --help)" \
	"create's --persistent-resource-id given to update: says the ID is an argument"
out=$(m persistent-resources update up-pr "${G[@]}" --resource-pool-spec=id=gpu,min-replica-count=3,max-replica-count=2 2>&1)
like "$out" "resource pool .gpu.: need 1 <= min-replica-count <= max-replica-count \(got 3 and 2\)" "min above max is refused by the same pool rules as create"
out=$(m persistent-resources update up-pr "${G[@]}" 2>&1)
like "$out" "nothing to update" "an update with no change is refused"
is "$(writes)" "$w1" "the refused updates sent no write (only the GETs that read the pools)"

hold true
out=$(m persistent-resources update "$NAME" --clear-labels --async 2>&1)
op=$(printf '%s\n' "$out" | sed -n 's/.*\$ mdcctl operations describe //p')
is "$(state)" UPDATING "update --async returns while the resource is UPDATING"
lop=$LOC/operations/${op##*/}
out=$(m operations describe "$lop" 2>&1)
like "$out" "done: +no" "mdcctl operations describe takes the location-scoped name"
hold false
out=$(m operations wait "projects/$num/locations/us-central1/operations/${op##*/}" 2>&1)
is "$?" 0 "mdcctl operations wait takes the project-number form"
is "$(get | jq -c '.labels // {}')" '{}' "--clear-labels removed every label"

# a failed update operation leaves the resource as it was
emu_stop
EMU_DIR_NEXT=$EMU_DIR emu_start --fault operation:fail || true
out=$(m persistent-resources update up-pr "${G[@]}" --display-name=Lost 2>&1)
like "$out" "error: operation '$NAME/operations/[0-9]+' failed" "a failed update operation fails the command"
wait_until 10 running
is "$(get | jq -c '[.state, .displayName]')" '["RUNNING","After"]' \
	"and the resource is RUNNING with its old values"
