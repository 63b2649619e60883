#!/usr/bin/env bash
# Requests the service refuses are refused: unknown JSON field names (as
# Google's JSON transcoding words it), unknown query parameters, and a PATCH
# without updateMask that would change a field outside the updatable set.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 23
emu_up
emu_create_cluster c1 >/dev/null || fail "create c1"
# req METHOD URL [BODY]: prints the body; the HTTP code goes to $TEST_DIR/code
req() {
	curl -sS -o "$TEST_DIR/body" -w '%{http_code}' -X "$1" ${3:+--data-binary "$3"} "$2" >"$TEST_DIR/code"
	cat "$TEST_DIR/body"
}
code() { cat "$TEST_DIR/code"; }
before=$(curl -sS "$EMU_CLUSTERS/c1")

# --- unknown JSON names ---------------------------------------------------------
got=$(req PATCH "$EMU_CLUSTERS/c1?updateMask=labels" '{"labels":{"a":"1"},"labelz":{"b":"2"}}')
is "$(code) $(jq -r .error.status <<<"$got")" "400 INVALID_ARGUMENT" "an unknown top-level field: 400"
is "$(jq -r .error.message <<<"$got")" \
	"Invalid JSON payload received. Unknown name \"labelz\" at 'model_development_cluster': Cannot find field." \
	"... worded as Google's transcoding"
got=$(req PATCH "$EMU_CLUSTERS/c1?updateMask=node_pools" \
	"$(jq -c '{nodePools: (.nodePools | .[0].machineSpec.gpuCount = 1)}' <<<"$before")")
is "$(jq -r .error.message <<<"$got")" \
	"Invalid JSON payload received. Unknown name \"gpuCount\" at 'model_development_cluster.node_pools[0].machine_spec': Cannot find field." \
	"a nested unknown name (lowerCamelCase) is placed in the request"
is "$(jq -r '.error.details[] | select(."@type" | endswith("BadRequest")) | .fieldViolations[0].field' <<<"$got")" \
	"model_development_cluster.node_pools[0].machine_spec" "... and named in a BadRequest detail"
got=$(req POST "$EMU_CLUSTERS?model_development_cluster_id=c2" \
	"$(emu_standard_cluster | jq -c '.orchestrator_spec.slurm_spec.home_dir = "x"')")
like "$(jq -r .error.message <<<"$got")" 'Unknown name "home_dir" at .model_development_cluster.orchestrator_spec.slurm_spec.' \
	"create: an unknown name is refused too"
is "$(curl -s -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/c2")" 404 "... and nothing was created"
got=$(req PATCH "$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.partitions" \
	"$(jq -cn '{orchestratorSpec: {slurmSpec: {partitions: ([range(13) | {id: "p\(.)", nodePoolIds: ["cpu"]}]
		| .[12].maxTime = "5")}}}')")
is "$(jq -r .error.message <<<"$got")" \
	"Invalid JSON payload received. Unknown name \"maxTime\" at 'model_development_cluster.orchestrator_spec.slurm_spec.partitions[12]': Cannot find field." \
	"the 13th partition's unknown name is placed at partitions[12]"
got=$(req PATCH "$EMU_CLUSTERS/c1?updateMask=labels" '{"labels":{"a":"1"},"_pinned_pools":["cpu"]}')
like "$(jq -r .error.message <<<"$got")" 'Unknown name "_pinned_pools"' "internal bookkeeping names are not part of the API"
# map keys are data, and both spellings of a field are accepted
req PATCH "$EMU_CLUSTERS/c1?updateMask=labels,orchestratorSpec.slurmSpec.config" \
	'{"labels":{"any-key":"1","any_key2":"2"},"orchestratorSpec":{"slurm_spec":{"config":{"PriorityWeightAge":"5"}}}}' >/dev/null
is "$(code)" 200 "map keys are data; snake_case and lowerCamelCase field names both accepted"
sleep 0.5

# --- unknown query parameters ----------------------------------------------------------
got=$(req GET "$EMU_CLUSTERS?filter=state=RUNNING")
is "$(code)" 400 "list: an unknown query parameter (filter) is refused"
is "$(jq -r .error.message <<<"$got")" \
	"Invalid JSON payload received. Unknown name \"filter\": Cannot bind query parameter. Field 'filter' could not be found in request message." \
	"... worded as Google's transcoding"
req GET "$EMU_CLUSTERS?pageSize=1&page_token=0&alt=json&prettyPrint=false" >/dev/null
is "$(code)" 200 "list: pageSize/page_token and system parameters (alt, prettyPrint) accepted"
req PATCH "$EMU_CLUSTERS/c1?updateMask=labels&requestId=1" '{"labels":{"a":"2"}}' >/dev/null
is "$(code)" 400 "PATCH: requestId is not a parameter of this API (C14)"
req GET "$EMU_CLUSTERS/c1?view=FULL" >/dev/null
is "$(code)" 400 "GET: an unknown parameter is refused"
# persistent resources and pipeline jobs: each method's own parameters only
PRS=$EMU_URL/v1/projects/proj/locations/us-central1/persistentResources
PJS=$EMU_URL/v1beta1/projects/proj/locations/us-central1/pipelineJobs
got=$(req GET "$PRS?filter=state=RUNNING")
is "$(code)" 400 "persistentResources.list: filter (not in its proto) is refused"
like "$(jq -r .error.message <<<"$got")" 'Unknown name "filter": Cannot bind query parameter' "... worded as Google's transcoding"
req GET "$PRS?pageSize=5&alt=json" >/dev/null
is "$(code)" 200 "persistentResources.list: pageSize and system parameters accepted"
req GET "$PJS?filter=state%3D%22PIPELINE_STATE_RUNNING%22&orderBy=create_time&readMask=name" >/dev/null
is "$(code)" 200 "pipelineJobs.list: filter, orderBy and readMask are its parameters"
req GET "$PJS?view=FULL" >/dev/null
is "$(code)" 400 "pipelineJobs.list: an unknown parameter is refused"

# --- a PATCH without updateMask may not change a fixed field -----------------------
cur=$(curl -sS "$EMU_CLUSTERS/c1")
got=$(req PATCH "$EMU_CLUSTERS/c1" "$(jq -c '.runtimeSpec.serviceAccount = "x@p.iam.gserviceaccount.com"' <<<"$cur")")
is "$(code) $(jq -r '.error.details[] | select(."@type" | endswith("BadRequest")) | .fieldViolations[0].field' <<<"$got")" \
	"400 model_development_cluster.runtime_spec" "no mask: changing runtime_spec (immutable) is a 400 naming the field"
got=$(req PATCH "$EMU_CLUSTERS/c1" "$(jq -c '.orchestratorSpec.slurmSpec.homeDirectoryStorage = "projects/p/x"' <<<"$cur")")
like "$(code) $(jq -r .error.message <<<"$got")" "^400 List of found errors:	1.Field: model_development_cluster.orchestrator_spec.slurm_spec.home_directory_storage; Message: field 'orchestrator_spec.slurm_spec.home_directory_storage' cannot be changed" \
	"no mask: changing home_directory_storage is refused, named"
got=$(req PATCH "$EMU_CLUSTERS/c1" "$(jq -c '.network.network = "projects/p/global/networks/other"' <<<"$cur")")
is "$(code)" 400 "no mask: changing the network is refused"
# the same document, fixed fields unchanged (output-only ones included): accepted
req PATCH "$EMU_CLUSTERS/c1" "$(jq -c '.labels.b = "3"' <<<"$cur")" >/dev/null
is "$(code)" 200 "no mask: the whole resource as read, fixed fields unchanged, is accepted"
