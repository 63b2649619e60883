#!/usr/bin/env bash
# The published resource's fields (magic-modules ModelDevelopmentCluster.yaml)
# are accepted, stored and returned, in the service's camelCase: a GPU pool
# drawing from a reservation, a flex-start pool, Filestore and Lustre mounts,
# a startup script, pool labels, confidential computing, runtimeSpec and
# lustreExportConfig.  mdcctl writes that send nodePools whole (a scale, a
# label change on the cluster) keep every one of them byte for byte.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 19
emu_up
cat >"$TEST_DIR/gpu.json" <<'JSON'
{
  "displayName": "gpu cluster",
  "network": {"network": "projects/proj/global/networks/default",
              "subnetwork": "projects/proj/regions/us-central1/subnetworks/default"},
  "runtimeSpec": {"serviceAccount": "train@proj.iam.gserviceaccount.com"},
  "lustreExportConfig": {"destinationBucket": "ckpt-backups", "daysOfWeek": ["MONDAY"],
                         "startTime": {"hours": 2, "minutes": 30}},
  "nodePools": [
    {"id": "a3", "machineSpec": {"machineType": "a3-highgpu-8g", "acceleratorType": "NVIDIA_H100_80GB",
       "acceleratorCount": 8,
       "reservationAffinity": {"reservationAffinityType": "SPECIFIC_RESERVATION",
                               "key": "compute.googleapis.com/reservation-name",
                               "values": ["projects/proj/zones/us-central1-a/reservations/r1"]}},
     "provisioningModel": "RESERVATION",
     "scalingSpec": {"minNodeCount": 2, "maxNodeCount": 2}, "zone": "us-central1-a",
     "lustres": ["projects/proj/locations/us-central1-a/instances/lustre1"],
     "filestores": ["projects/proj/locations/us-central1-a/instances/data"],
     "startupScript": "#!/bin/bash\necho hi",
     "labels": {"cost-center": "ml"},
     "confidentialInstanceConfig": {"confidentialInstanceType": "TDX"}},
    {"id": "flex", "machineSpec": {"machineType": "a3-highgpu-8g", "acceleratorType": "NVIDIA_H100_80GB",
       "acceleratorCount": 8},
     "provisioningModel": "FLEX_START", "flexStartMaxDuration": "86400s",
     "scalingSpec": {"minNodeCount": 0, "maxNodeCount": 4}, "zone": "us-central1-a"},
    {"id": "login", "machineSpec": {"machineType": "n2-standard-8"},
     "scalingSpec": {"minNodeCount": 1, "maxNodeCount": 1}, "zone": "us-central1-a"}
  ],
  "orchestratorSpec": {"slurmSpec": {
    "homeDirectoryStorage": "projects/proj/locations/us-central1-a/instances/home",
    "partitions": [{"id": "gpu", "nodePoolIds": ["a3", "flex"]}],
    "defaultPartitionId": "gpu", "loginNodePoolId": "login"}}
}
JSON
op=$(emu_create_cluster g1 "$TEST_DIR/gpu.json"); rc=$?
is "$rc" 0 "the published GPU example is accepted"
is "$(jq -r '.error.message // "none"' <<<"$op")" none "... and its create finishes without an error"

pools() { emu_curl "$EMU_CLUSTERS/g1" | jq -S '[.nodePools[] | del(.scalingSpec, .nodeImage)]'; }
want=$(jq -S '[.nodePools[] | del(.scalingSpec)]' "$TEST_DIR/gpu.json")
is "$(pools)" "$want" "every published pool field is stored and returned as sent"
got=$(emu_curl "$EMU_CLUSTERS/g1")
is "$(jq -c '[.runtimeSpec, .lustreExportConfig]' <<<"$got")" \
	"$(jq -c '[.runtimeSpec, .lustreExportConfig]' "$TEST_DIR/gpu.json")" \
	"runtimeSpec and lustreExportConfig too"

export MDC_ENDPOINT=$EMU_URL MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/g1
: >"$EMU_LOG"
out=$(M --yes nodepool scale flex --max 6 2>&1); rc=$?
is "$rc" 0 "mdcctl nodepool scale on a flex-start pool succeeds" || diag "$out"
sent=$(jq -c 'select(.method == "PATCH") | .body' "$EMU_LOG" | head -n 1)
is "$(jq -S '[(.nodePools // .node_pools)[] | del(.scalingSpec, .scaling_spec, .nodeImage, .node_image)]' <<<"$sent" |
	jq -S 'walk(if type == "object" then with_entries(.key |= gsub("_(?<c>[a-z])"; .c | ascii_upcase)) else . end)')" \
	"$want" "the full-replacement nodePools PATCH sends every pool field back unchanged"
is "$(pools)" "$want" "... and the cluster keeps them all"
is "$(emu_curl "$EMU_CLUSTERS/g1" | jq -c '.nodePools[] | select(.id == "flex") | .scalingSpec.maxNodeCount')" \
	6 "... with the new count"
M --yes labels set team=ml >/dev/null 2>&1
is "$(pools)" "$want" "a cluster label change keeps them too"

# displayName is updatable in the published resource, up to 128 characters
dn() { emu_curl -o "$TEST_DIR/dn.out" -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' \
	--data-binary "$(jq -nc --arg d "$1" '{displayName: $d}')" "$EMU_CLUSTERS/g1?updateMask=displayName"; }
is "$(dn renamed)" 200 "a displayName update is accepted"
emu_wait_op "$(jq -r .name "$TEST_DIR/dn.out")" >/dev/null
is "$(emu_curl "$EMU_CLUSTERS/g1" | jq -r .displayName)" renamed "... and kept"
is "$(dn "$(printf 'é%.0s' $(seq 128))")" 200 "128 characters (two bytes each) are allowed"
emu_wait_op "$(jq -r .name "$TEST_DIR/dn.out")" >/dev/null
is "$(dn "$(printf 'x%.0s' $(seq 129))") $(jq -r .error.message "$TEST_DIR/dn.out")" \
	"400 List of found errors:	1.Field: model_development_cluster.display_name; Message: model_development_cluster.display_name is 129 characters long: at most 128 are allowed	" \
	"129 are refused, naming the field (the service's validation form)"

# the published enums and provisioning constraints, refused at request time
bad() { # bad JQ-EDIT: create g2 from the GPU example with an edit; the message
	jq "$1" "$TEST_DIR/gpu.json" >"$TEST_DIR/bad.json"
	emu_curl -X POST -H 'Content-Type: application/json' --data-binary @"$TEST_DIR/bad.json" \
		"$EMU_CLUSTERS?model_development_cluster_id=g2" | jq -r '.error.message // "accepted"'
}
like "$(bad '.nodePools[2].bootDisk = {bootDiskType: "pd-balanced"}')" \
	"invalid model_development_cluster.node_pools\\[2\\].boot_disk.boot_disk_type 'pd-balanced': expected one of pd-ssd, pd-standard, hyperdisk-balanced" \
	"an unknown boot disk type is refused with the list"
like "$(bad '.nodePools[1].provisioningModel = "PREEMPTIBLE"')" "invalid model_development_cluster.node_pools\\[1\\].provisioning_model 'PREEMPTIBLE'" \
	"an unknown provisioning model is refused"
like "$(bad '.nodePools[1] |= del(.provisioningModel, .flexStartMaxDuration)')" \
	"node pool 'flex' has GPUs and no reservation affinity: set provisioning_model" \
	"a GPU pool without a reservation affinity must set a provisioning model"
like "$(bad '.nodePools[0].provisioningModel = "SPOT"')" \
	"reservation_affinity cannot be set with provisioning_model SPOT" "SPOT with a reservation affinity is refused"
like "$(bad '.nodePools[1].provisioningModel = "SPOT"')" \
	"flex_start_max_duration applies only with provisioning_model FLEX_START" "a flex duration outside FLEX_START is refused"
is "$(emu_curl -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/g2")" 404 "no refused create left a cluster"
