#!/usr/bin/env bash
# Conformance with an independent real client: Google's Node.js client
# (`googleapis` from npm) pointed at the emulator (rootUrl, dummy token)
# must accept its answers for persistentResources create/get/list/patch/
# delete (operations by resource and by location, names with the project
# number) and the pipelineJobs lifecycle (create, get until SUCCEEDED,
# list with filter/orderBy/readMask, cancel, delete, batchDelete), and
# mdcctl must read what that client made.
# npm installs the client once into a cache keyed by its version
# (MDC_NODE_CACHE overrides the directory); when npm cannot reach its
# registry the test is skipped with the reason, never passed silently.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

GOOGLEAPIS_VERSION=188.0.0
CACHE=${MDC_NODE_CACHE:-${TMPDIR:-/tmp}/mdc-node-googleapis-$GOOGLEAPIS_VERSION}

command -v node >/dev/null || skip_all "node is not installed (scripts/install-deps installs nodejs)"
command -v npm >/dev/null || skip_all "npm is not installed (scripts/install-deps installs npm)"
command -v jq >/dev/null || skip_all "jq not installed"

# install once; a temporary directory renamed into place keeps a half-done
# install from ever looking like a cache, and the lock serialises tests
install_client() {
	local tmp
	[ -f "$CACHE/node_modules/googleapis/package.json" ] && return 0
	tmp=$(mktemp -d "$CACHE.tmp.XXXXXX") || return 1
	if (cd "$tmp" && timeout 600 npm install --no-audit --no-fund --no-save --loglevel=error \
		--fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 \
		"googleapis@$GOOGLEAPIS_VERSION") >"$TEST_DIR/npm.log" 2>&1; then
		mv -T "$tmp" "$CACHE" 2>/dev/null || rm -rf "$tmp"
	else
		rm -rf "$tmp"
		return 1
	fi
	[ -f "$CACHE/node_modules/googleapis/package.json" ]
}
mkdir -p "$(dirname "$CACHE")"
if ! (flock 9; install_client) 9>"$CACHE.lock"; then
	why=$(grep -v '^\s*$' "$TEST_DIR/npm.log" | head -n 2 | tr '\n' ' ')
	skip_all "npm could not install googleapis@$GOOGLEAPIS_VERSION: ${why:-no output from npm}"
fi

emu_pr_env
PARENT=projects/proj/locations/us-central1

plan 25

# short pipeline timings: the runs end within the test
curl -sS -X POST -H 'Content-Type: application/json' --data '{"pendingMs": 100, "taskMs": 200, "cancelMs": 100}' \
	"$EMU_URL/emulator/v1/pipelineJobs:timing" >/dev/null
NUM=$(curl -sS "$EMU_URL/emulator/v1/projects/proj" | jq -r .projectNumber)
NODE_PATH="$CACHE/node_modules" node "$top_srcdir/tests/node/conformance.js" \
	"$EMU_URL" proj us-central1 "$top_srcdir/tests/pr/pipeline-spec.json" "$NUM" \
	>"$TEST_DIR/node.out" 2>"$TEST_DIR/node.err"
rc=$?
show_on_fail "$TEST_DIR/node.err"
is "$rc" 0 "the googleapis client accepted every answer"
step() { jq -c --arg s "$1" "select(.step == \$s) | .data | $2" "$TEST_DIR/node.out"; }
rstep() { jq -r --arg s "$1" "select(.step == \$s) | .data | $2" "$TEST_DIR/node.out"; }

is "$(step create '[.status, .done, .metadataType]')" \
	'[200,false,"type.googleapis.com/google.cloud.aiplatform.v1.CreatePersistentResourceOperationMetadata"]' \
	"persistentResources.create: an LRO with the real metadata type"
is "$(step create-op '[.done, .state]')" '[true,"RUNNING"]' "the operation ends with a RUNNING resource"
is "$(step get '[.state, .pools, .gpuMax, .customSa]')" '["RUNNING",2,"3",true]' \
	"persistentResources.get: fields as the client expects them"
is "$(step list '.names')" "[\"$PARENT/persistentResources/node-pr\"]" \
	"persistentResources.list, paged one by one"
is "$(step job-create '[.status, .name]')" "[200,\"$PARENT/pipelineJobs/node-run\"]" \
	"pipelineJobs.create with pipelineJobId"
is "$(step job-get '[.behavior, .pipelineName]')" '["FALL_BACK_TO_ON_DEMAND","train-on-pr"]' \
	"pipelineJobs.get returns the runtime detail and the spec"
is "$(step delete '[.done, .metadataType, .gone.code, .gone.status]')" \
	'[true,"type.googleapis.com/google.cloud.aiplatform.v1.DeleteOperationMetadata",404,"NOT_FOUND"]' \
	"persistentResources.delete: an LRO, then 404 NOT_FOUND"
is "$(step refused '[.code, .status]')" '[400,"INVALID_ARGUMENT"]' "a bad id is refused in Google's error form"
is "$(step update '[.status, .done, .metadataType]')" \
	'[200,false,"type.googleapis.com/google.cloud.aiplatform.v1beta1.UpdatePersistentResourceOperationMetadata"]' \
	"persistentResources.patch: an LRO with UpdatePersistentResourceOperationMetadata"
like "$(rstep update-op '[.done, .state, .responseType, .name] | @tsv')" \
	"^true	RUNNING	type.googleapis.com/google.cloud.aiplatform.v1beta1.PersistentResource	$PARENT/persistentResources/node-pr/operations/[0-9]+$" \
	"operations.get on the location-scoped name follows it to a RUNNING resource"
is "$(step update-get '[.name, .state, .replicas, .gpuMax, .labels.updated]')" \
	"[\"$PARENT/persistentResources/node-pr\",\"RUNNING\",\"3\",\"5\",\"yes\"]" \
	"get by the project-number name shows the update"
is "$(jq -c 'select(.method == "PATCH") | .query' "$EMU_LOG")" '{"updateMask":"resourcePools,labels"}' \
	"the client sent updateMask as the API names it"
is "$(step life '[.created, .state, .started, .ended, .tasks]')" \
	'["PIPELINE_STATE_PENDING","PIPELINE_STATE_SUCCEEDED",true,true,["prepare SUCCEEDED","train SUCCEEDED"]]' \
	"pipelineJobs: a run goes PENDING to SUCCEEDED, its tasks in order"
is "$(rstep life '.resource')" "$PARENT/persistentResources/node-pr" \
	"the run names the resource by project id although it was given the number"
is "$(step life-list '.jobs')" "[\"name,state $PARENT/pipelineJobs/node-life\"]" \
	"pipelineJobs.list with filter, orderBy and readMask"
is "$(step cancel '[.status, .state, .code]')" '[200,"PIPELINE_STATE_CANCELLED",1]' \
	"pipelineJobs.cancel: the run ends CANCELLED with code 1"
is "$(rstep job-delete '.metadataType'),$(rstep batch-delete '[.responseType, .deleted[0], .lifeGone] | @csv')" \
	"type.googleapis.com/google.cloud.aiplatform.v1beta1.DeleteOperationMetadata,\"type.googleapis.com/google.cloud.aiplatform.v1beta1.BatchDeletePipelineJobsResponse\",\"$PARENT/pipelineJobs/node-life\",404" \
	"pipelineJobs.delete and batchDelete: LROs with the real types, the job gone (404)"
is "$(jq -r 'select(.method == "POST" and (.path | endswith("/persistentResources"))) | .query | keys[0]' "$EMU_LOG" | sort -u)" \
	persistentResourceId "the client sent its own spelling (persistentResourceId) and it was understood"

# mdcctl reads what the other client created
m() { mdcctl --endpoint "$EMU_URL" "$@"; }
out=$(m persistent-resources list "${G[@]}" 2>&1)
like "$out" "node-pr +RUNNING +made by googleapis +3 x n1-standard-4; 1-5 x n1-standard-8 \+ 1 NVIDIA_TESLA_T4" \
	"mdcctl persistent-resources list shows the node-made (and node-updated) resource"
is "$(m persistent-resources describe node-pr "${G[@]}" | jq -c '[.displayName, .labels.origin, .resourcePools[1].id]')" \
	'["made by googleapis","node","gpu"]' "mdcctl persistent-resources describe reads it"
out=$(m pipelines describe node-run "${G[@]}" 2>&1)
like "$out" "persistentResource: +$PARENT/persistentResources/node-pr" "mdcctl pipelines describe reads the node-made job"
like "$out" "onTimeout: +FALL_BACK_TO_ON_DEMAND" "with its timeout behaviour"
out=$(m pipelines run "${G[@]}" --pipeline "$top_srcdir/tests/pr/pipeline.yaml" --persistent-resource node-pr \
	--wait-time 5m --on-timeout fail --pipeline-root gs://bucket/r --parameter project_id=p \
	--parameter learning_rate=1 --job-id after-node 2>&1)
like "$out" "Created pipeline job \[$PARENT/pipelineJobs/after-node\]" \
	"mdcctl runs a pipeline on the node-made resource (custom service account seen)"
is "$(m pipelines list "${G[@]}" --format json | jq -r '[.[].name | sub(".*/"; "")] | sort | join(" ")')" \
	"after-node node-run" "mdcctl pipelines list sees both jobs"
