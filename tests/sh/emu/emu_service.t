#!/usr/bin/env bash
# mdc-emulator answers as the service does: the required
# fields of a create, the enums and the GPU provisioning rule, the typed
# legacy blocks, immutable pool fields, the service's error shape ("List
# of found errors" in a BadRequest, no ErrorInfo), and a create that fails
# after it was accepted (a stockout): the cluster stays in ERROR, a retry
# gets 409 ALREADY_EXISTS, the operation fails with the real code.
# The shapes follow the real answers in behardja/cloud-training-cluster.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 44
emu_up --fault create:stockout:a4-highgpu-8g --fault create:invalid:a3-highgpu-8g
emu_standard_cluster >"$TEST_DIR/std.json"

# post ID JQ-EDIT: create ID from the standard cluster with an edit; the
# answer in $TEST_DIR/r.json, the HTTP code printed
post() {
	jq "$2" "$TEST_DIR/std.json" >"$TEST_DIR/body.json"
	emu_curl -o "$TEST_DIR/r.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
		--data-binary @"$TEST_DIR/body.json" "$EMU_CLUSTERS?model_development_cluster_id=$1"
}
msg() { jq -r .error.message "$TEST_DIR/r.json"; }
violation() { jq -r '.error.details[] | select(."@type" | endswith("BadRequest")) | .fieldViolations[0].field' "$TEST_DIR/r.json"; }
found() { printf 'List of found errors:\t1.Field: %s; Message: %s\t' "$1" "$2"; }

# --- required fields at create, in the service's shape ---------------------------------
is "$(post r1 'del(.network)') $(msg)" \
	"400 $(found model_development_cluster.network "model_development_cluster.network is required")" \
	"no network: 400, 'List of found errors' naming the field"
is "$(jq -c '[.error.code, .error.status, [.error.details[]."@type"]]' "$TEST_DIR/r.json")" \
	'[400,"INVALID_ARGUMENT",["type.googleapis.com/google.rpc.BadRequest"]]' \
	"... a BadRequest detail only, no ErrorInfo"
is "$(jq -c '.error.details[0].fieldViolations' "$TEST_DIR/r.json")" \
	'[{"field":"model_development_cluster.network","description":"model_development_cluster.network is required"}]' \
	"... whose violation has the field and the message"
is "$(post r1 'del(.node_pools)') $(violation)" "400 model_development_cluster.node_pools" "no node pools: refused"
is "$(post r1 'del(.node_pools[0].machine_spec)') $(violation)" "400 model_development_cluster.node_pools[0].machine_spec" \
	"a pool without machine spec: refused, placed"
is "$(post r1 'del(.orchestrator_spec)') $(violation)" "400 model_development_cluster.orchestrator_spec" \
	"no orchestrator spec: refused"
is "$(post r1 'del(.orchestrator_spec.slurm_spec.home_directory_storage)') $(violation)" \
	"400 model_development_cluster.orchestrator_spec.slurm_spec.home_directory_storage" "no home directory storage: refused"
is "$(post r1 'del(.orchestrator_spec.slurm_spec.login_node_pool_id)') $(violation)" \
	"400 model_development_cluster.orchestrator_spec.slurm_spec.login_node_pool_id" "no login pool: refused"
is "$(curl -s -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/r1")" 404 "... and nothing was created"

# --- several findings in one answer, as the service lists them ---------------------------
is "$(post r1 'del(.network) | del(.orchestrator_spec.slurm_spec.login_node_pool_id)') $(msg)" \
	"400 List of found errors:	1.Field: model_development_cluster.network; Message: model_development_cluster.network is required	2.Field: model_development_cluster.orchestrator_spec.slurm_spec.login_node_pool_id; Message: model_development_cluster.orchestrator_spec.slurm_spec.login_node_pool_id is required	" \
	"two required fields missing: both listed, numbered"
is "$(jq -c '[.error.details[0].fieldViolations[].field]' "$TEST_DIR/r.json")" \
	'["model_development_cluster.network","model_development_cluster.orchestrator_spec.slurm_spec.login_node_pool_id"]' \
	"... one field violation each"
post r1 '.node_pools[0].boot_disk.boot_disk_type = "pd-balanced" | .node_pools[1].provisioning_model = "PREEMPTIBLE"' >/dev/null
like "$(msg)" "^List of found errors:	1\.Field: model_development_cluster\.node_pools\[0\]\.boot_disk\.boot_disk_type; Message: [^	]*pd-balanced[^	]*	2\.Field: model_development_cluster\.node_pools\[1\]\.provisioning_model; Message: [^	]*PREEMPTIBLE[^	]*	$" \
	"two bad values in two pools: both listed"
post r1 'del(.network) | .node_pools[0].boot_disk.boot_disk_type = "pd-balanced"' >/dev/null
like "$(msg)" "^List of found errors:	1\.Field: model_development_cluster\.node_pools\[0\]\.boot_disk\.boot_disk_type; Message: [^	]*	2\.Field: model_development_cluster\.network; Message: model_development_cluster\.network is required	$" \
	"a bad value and a missing required field: both in one answer"
is "$(post r1 '.node_pools[0].boot_disk.boot_disk_type = "pd-balanced" | .colour = "red"') $(jq -r '.error.details[0].fieldViolations | length' "$TEST_DIR/r.json")" \
	"400 1" "an unknown name besides: the front end's one refusal only"

# --- enums, the GPU rule, typed legacy blocks ---------------------------------------------
is "$(post r1 '.node_pools[0].boot_disk.boot_disk_type = "pd-balanced"') $(violation)" \
	"400 model_development_cluster.node_pools[0].boot_disk.boot_disk_type" "boot disk type outside pd-ssd/pd-standard/hyperdisk-balanced: refused"
like "$(msg)" "^List of found errors:	1\.Field: .*expected one of pd-ssd, pd-standard, hyperdisk-balanced	$" "... listing the types"
a4='.node_pools[0].machine_spec = {machine_type: "a4-highgpu-8g", accelerator_type: "NVIDIA_B200", accelerator_count: 8}
	| .node_pools[0].provisioning_model = "ON_DEMAND"'
is "$(post r1 "$a4") $(violation)" "400 model_development_cluster.node_pools[0].boot_disk.boot_disk_type" \
	"an A4 pool on pd-standard: refused, as the service does"
like "$(msg)" "machine type a4-highgpu-8g takes boot_disk_type hyperdisk-balanced \(or unset, the default\), not 'pd-standard'" \
	"... saying which disk it takes"
is "$(post r1 '.node_pools[0].provisioning_model = "PREEMPTIBLE"') $(violation)" \
	"400 model_development_cluster.node_pools[0].provisioning_model" "an unknown provisioning model: refused"
is "$(post r1 '.node_pools[0].machine_spec += {accelerator_type: "NVIDIA_L4", accelerator_count: 1}') $(violation)" \
	"400 model_development_cluster.node_pools" "a GPU pool with neither reservation affinity nor provisioning model: refused"
like "$(msg)" "node pool 'cpu' has GPUs and no reservation affinity: set provisioning_model" "... saying what to set"
is "$(post r1 '.orchestrator_spec.slurm_spec.scheduling = {priority_wait_age: "10"}') $(msg)" \
	"400 Invalid JSON payload received. Unknown name \"priority_wait_age\" at 'model_development_cluster.orchestrator_spec.slurm_spec.scheduling': Cannot find field." \
	"legacy scheduling: an unknown key is refused as an unknown field"
is "$(post r1 '.orchestrator_spec.slurm_spec.accounting = {accounting_storage_enforce: ["limits"]}') $(violation)" \
	"400 model_development_cluster.orchestrator_spec.slurm_spec.accounting.accounting_storage_enforce" \
	"legacy accounting: a value that is no scalar is refused"

# --- immutable fields of a kept pool --------------------------------------------------------
emu_create_cluster c1 >/dev/null || echo "Bail out! cannot create c1"
pools=$(emu_curl "$EMU_CLUSTERS/c1" | jq -c '[.nodePools[] | del(.nodeImage)]')
patch_pools() { # JQ-EDIT of the pools; the code
	emu_curl -o "$TEST_DIR/r.json" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
		--data-binary "{\"nodePools\":$(jq -c "$1" <<<"$pools")}" "$EMU_CLUSTERS/c1?updateMask=node_pools"
}
is "$(patch_pools '.[0].machineSpec.machineType = "n2-standard-16"') $(violation)" \
	"400 model_development_cluster.node_pools[0].machine_spec" "a kept pool's machine spec cannot change"
like "$(msg)" "node pool 'cpu': machine_spec cannot be changed after the pool is created" "... and says so"
is "$(patch_pools '.[0].provisioningModel = "SPOT"') $(violation)" \
	"400 model_development_cluster.node_pools[0].provisioning_model" "nor its provisioning model"
is "$(patch_pools 'del(.[1].machineSpec)') $(violation)" "400 model_development_cluster.node_pools[1].machine_spec" \
	"an update may not leave a pool without machine spec (required)"
is "$(emu_curl -o "$TEST_DIR/r.json" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' --data-binary '{}' \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.login_node_pool_id") $(violation)" \
	"400 model_development_cluster.orchestrator_spec.slurm_spec.login_node_pool_id" "nor clear the login pool (required)"
is "$(patch_pools '.[0].scalingSpec.maxNodeCount = 3')" 200 "its scaling spec can"
emu_wait_op "$(jq -r .name "$TEST_DIR/r.json")" >/dev/null

# --- a create the service accepts and cannot carry out ----------------------------------------
gpu='.node_pools[0].machine_spec = {machine_type: "a4-highgpu-8g", accelerator_type: "NVIDIA_B200", accelerator_count: 8}
	| .node_pools[0].provisioning_model = "ON_DEMAND" | .node_pools[0].boot_disk.boot_disk_type = "hyperdisk-balanced"'
is "$(post s1 "$gpu")" 200 "a create of a pool of a type in stockout is accepted"
op=$(emu_wait_op "$(jq -r .name "$TEST_DIR/r.json")")
is "$(jq -c '[.done, .error.code, has("response")]' <<<"$op")" '[true,8,false]' \
	"... its operation fails with 8 (RESOURCE_EXHAUSTED)"
like "$(jq -r .error.message <<<"$op")" "zone us-central1-a has not enough resources for node pool 'cpu' \(a4-highgpu-8g\)" \
	"... naming the zone, pool and machine type"
got=$(emu_curl "$EMU_CLUSTERS/s1")
is "$(jq -c '[.clusterStatus.state, .clusterStatus.error.code, ([.clusterStatus.nodesStatus[].nodeState] | unique)]' <<<"$got")" \
	'["ERROR",8,["ERROR"]]' "the cluster stays, in ERROR, with the error and its nodes in ERROR"
is "$(post s1 'del(.labels)') $(jq -c '.error | [.code, .status, has("details")]' "$TEST_DIR/r.json")" \
	'409 [409,"ALREADY_EXISTS",false]' "a retry of the create: 409 ALREADY_EXISTS without details"
is "$(msg)" 'There is an existing ModelDevelopmentCluster with the same ID "s1": delete it and retry, or use another ID.' \
	"... 'existing ModelDevelopmentCluster with the same ID'"
# what real scripts do next: delete the leftover, try the next hardware profile
op=$(emu_curl -X DELETE "$EMU_CLUSTERS/s1" | jq -r .name)
emu_wait_op "$op" >/dev/null
is "$(post s1 '.')" 200 "after deleting the ERROR cluster the id is free again"
op=$(emu_wait_op "$(jq -r .name "$TEST_DIR/r.json")")
is "$(jq -r 'has("error")' <<<"$op") $(emu_curl "$EMU_CLUSTERS/s1" | jq -r .clusterStatus.state)" "false RUNNING" \
	"... and the next profile comes up"
# a machine type the service refuses once it tries: code 3
post s2 '.node_pools[0].machine_spec.machine_type = "a3-highgpu-8g"' >/dev/null
op=$(emu_wait_op "$(jq -r .name "$TEST_DIR/r.json")")
is "$(jq -c '[.error.code, .error.message]' <<<"$op")" '[3,"machine type a3-highgpu-8g is not allowed for VM"]' \
	"create:invalid: the operation fails with 3 (INVALID_ARGUMENT)"

# --- operation names carry the project number ----------------------------------------------
post n1 '.' >/dev/null
name=$(jq -r .name "$TEST_DIR/r.json")
num=$(sed -n 's|^projects/\([0-9]*\)/locations/us-central1/operations/[0-9]*$|\1|p' <<<"$name")
like "$num" '^[0-9]{12}$' "a create's operation is projects/NUMBER/locations/L/operations/N ($name)"
is "$(emu_curl -X PATCH -H 'Content-Type: application/json' --data-binary '{"labels":{"a":"b"}}' \
	"$EMU_CLUSTERS/c1?updateMask=labels" | jq -r .name | cut -d/ -f2)" "$num" "the same project, the same number"
is "$(emu_curl "$EMU_URL/v1/projects/proj/locations/us-central1/operations/${name##*/}" | jq -r .name)" "$name" \
	"the operation is found under the project id too"
emu_wait_op "$name" >/dev/null
other=$(emu_curl -X POST -H 'Content-Type: application/json' --data-binary @"$TEST_DIR/std.json" \
	"$EMU_URL/$EMU_API/projects/other/locations/us-central1/modelDevelopmentClusters?modelDevelopmentClusterId=n2" | jq -r .name)
like "$other" "^projects/[0-9]{12}/locations/us-central1/operations/[0-9]+$" "another project's operation is named with its number"
isnt "$(cut -d/ -f2 <<<"$other")" "$num" "... which is another number"
emu_stop
EMU_DIR_NEXT=$EMU_DIR emu_up
is "$(post n3 '.' >/dev/null; jq -r .name "$TEST_DIR/r.json" | cut -d/ -f2)" "$num" "the number is stable across restarts"
