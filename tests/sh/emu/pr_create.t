#!/usr/bin/env bash
# mdcctl persistent-resources create against the emulator: the exact JSON
# sent (read back from the emulator's --request-log) for one fixed-size
# pool, one autoscaling pool, two pools and a --config file merged with
# flags; refusals (bad id, min without max, underscore YAML key, ...) send
# nothing at all.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq not installed"
D=$top_srcdir/tests/pr
emu_pr_env

plan 27

pr() { mdcctl --endpoint "$EMU_URL" persistent-resources "$@"; }

# the body of the last create POST for ID, key-sorted
sent_body() {
	jq -S --arg id "$1" 'select(.method == "POST" and
		(.path | endswith("/persistentResources")) and
		.query.persistent_resource_id == $id) | .body' "$EMU_LOG"
}
posts() { jq -r 'select(.method == "POST") | .path' "$EMU_LOG" | wc -l; }

create_case() {	# create_case ID EXPECTED_FILE FLAGS...
	local id=$1 want=$2 out; shift 2
	out=$(pr create "${G[@]}" --persistent-resource-id="$id" "$@" 2>&1)
	is "$?" 0 "create $id succeeds"
	sent_body "$id" >"$TEST_DIR/$id.got"
	jq -S . "$D/$want" >"$TEST_DIR/$id.want"
	files_eq "create $id sends exactly $want" "$TEST_DIR/$id.got" "$TEST_DIR/$id.want"
	LAST_OUT=$out
}

create_case fixed-pr fixed.json --display-name="Fixed pool" \
	--resource-pool-spec="replica-count=4,machine-type=n1-standard-4" \
	--enable-custom-service-account
like "$LAST_OUT" "Operation to create PersistentResource \[projects/proj/locations/us-central1/persistentResources/fixed-pr/operations/[0-9]+\] is submitted successfully" \
	"create names the operation as gcloud does"
like "$LAST_OUT" "mdcctl operations describe projects/proj/.*/operations/[0-9]+" \
	"create says how to follow the operation"
like "$LAST_OUT" "Created persistent resource \[projects/proj/locations/us-central1/persistentResources/fixed-pr\] \(state RUNNING\)" \
	"create waits until the resource is RUNNING"
is "$(jq -r 'select(.method == "POST") | .path' "$EMU_LOG" | head -1)" \
	"/v1/projects/proj/locations/us-central1/persistentResources" "create POSTs to /v1 (P1)"

create_case auto-pr autoscaling.json --display-name "Autoscaling pool" \
	--resource-pool-spec "min-replica-count=1,max-replica-count=3,machine-type=n1-standard-8,disk-type=pd-ssd,disk-size=200" \
	--enable-custom-service-account

create_case two-pr two-pools.json \
	--resource-pool-spec "replica-count=2,machine-type=n1-standard-4" \
	--resource-pool-spec "machine-type=a2-highgpu-1g,replica-count=1,min-replica-count=1,max-replica-count=2,accelerator-type=nvidia-tesla-a100" \
	--labels team=ml --enable-custom-service-account

create_case conf-pr config-merged.json --config "$D/config.yaml" --display-name "From the flags" \
	--resource-pool-spec id=gpu,min-replica-count=2,max-replica-count=8 \
	--resource-pool-spec machine-type=e2-standard-4,replica-count=2 \
	--labels team=research,owner=alice --enable-custom-service-account

# the documentation's own config example (one pool as a mapping)
out=$(pr create "${G[@]}" --persistent-resource-id=doc-pr --config "$D/config-doc.yaml" \
	--enable-custom-service-account --async 2>&1)
is "$(sent_body doc-pr | jq -c .resource_pools)" \
	'[{"machine_spec":{"machine_type":"n1-standard-4"},"replica_count":1}]' \
	"the documentation's resourcePoolSpecs example is read"
like "$out" "operations describe" "--async prints the operation and how to follow it"
unlike "$out" "Created persistent resource" "--async does not wait"

# refusals: a clear message, exit status 3 or 2, and no POST at all
before=$(posts)
refuse() {	# refuse DESC REGEX FLAGS...
	local desc=$1 re=$2 out rc; shift 2
	out=$(pr create "${G[@]}" "$@" 2>&1); rc=$?
	if [ "$rc" != 0 ] && printf '%s' "$out" | grep -Eq -- "$re"; then
		pass "$desc"
	else
		fail "$desc" "exit $rc" "$out"
	fi
}
refuse "bad id (upper case) is refused" "persistent resource id 'My_PR' must start with a lowercase letter" \
	--persistent-resource-id=My_PR --resource-pool-spec=replica-count=1,machine-type=n1-standard-4
refuse "bad id (trailing hyphen) is refused" "must end with a letter or a digit" \
	--persistent-resource-id=pr- --resource-pool-spec=replica-count=1,machine-type=n1-standard-4
refuse "min without max is refused" "min-replica-count given without max-replica-count" \
	--persistent-resource-id=ok-pr --resource-pool-spec=min-replica-count=1,machine-type=n1-standard-4
refuse "a pool without any count is refused" "give replica-count, or both min-replica-count and max-replica-count" \
	--persistent-resource-id=ok-pr --resource-pool-spec=machine-type=n1-standard-4
refuse "an underscore key in --config is refused" \
	"config-underscore.yaml': key 'resourcePools\[0\].replica_count' has an underscore: keys with underscores are invalid, write 'replicaCount'" \
	--persistent-resource-id=ok-pr --config "$D/config-underscore.yaml"
refuse "an unknown --resource-pool-spec key is refused" "unknown key 'gpus'" \
	--persistent-resource-id=ok-pr --resource-pool-spec=replica-count=1,machine-type=n1,gpus=2
is "$(posts)" "$before" "no refused create sent anything"

# the emulator enforces the same rules on clients that do not check
code=$(curl -sS -o "$TEST_DIR/bad.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	--data '{"resourcePools":[{"machineSpec":{"machineType":"n1"},"autoscalingSpec":{"minReplicaCount":1}}]}' \
	"$EMU_URL/v1/projects/proj/locations/us-central1/persistentResources?persistentResourceId=raw-pr")
is "$code" 400 "the emulator refuses min without max with 400"
is "$(jq -r .error.status "$TEST_DIR/bad.json")" INVALID_ARGUMENT "in Google's error form"
code=$(curl -sS -o "$TEST_DIR/bad.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	--data '{"resourcePools":[{"machineSpec":{"machineType":"n1"},"replicaCount":1}]}' \
	"$EMU_URL/v1/projects/proj/locations/us-central1/persistentResources?persistentResourceId=fixed-pr")
is "$code" 409 "creating an existing id is ALREADY_EXISTS (409)"

# list walks every page
out=$(pr list "${G[@]}" --page-size 2 --format json)
is "$(printf '%s' "$out" | jq -r '[.[].name | sub(".*/"; "")] | join(" ")')" \
	"auto-pr conf-pr doc-pr fixed-pr two-pr" "list --page-size 2 returns every resource"
is "$(jq -r 'select(.method == "GET" and (.path | endswith("/persistentResources"))) | .query.pageToken // "-"' "$EMU_LOG" | tr '\n' ' ')" \
	"- 2 4 " "it followed nextPageToken page by page"
