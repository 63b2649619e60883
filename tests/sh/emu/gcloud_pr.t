#!/usr/bin/env bash
# The Google Cloud CLI against the emulator, for persistent resources and
# their operations: gcloud ai persistent-resources create (with flags, and
# with --config YAML), list --format=json, describe, reboot, delete, and
# gcloud ai operations describe must all work on the emulator's answers,
# and mdcctl's JSON for the same resource must equal gcloud's (jq -S).
# gcloud never touches the network here: its configuration lives in the
# test directory, usage reporting, update checks, survey prompts and the
# metadata server probe are off, and every proxy variable points at a
# closed port with only loopback excepted.  Skipped (counted) without gcloud.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v gcloud >/dev/null || skip_all "gcloud (the Google Cloud CLI) is not installed"
command -v jq >/dev/null || skip_all "jq not installed"
emu_pr_env
REGION=us-central1
PARENT=projects/proj/locations/$REGION

export CLOUDSDK_CONFIG=$TEST_DIR/gcloud-config
export CLOUDSDK_API_ENDPOINT_OVERRIDES_AIPLATFORM=$EMU_URL/
export CLOUDSDK_AUTH_ACCESS_TOKEN=x CLOUDSDK_CORE_PROJECT=proj
export CLOUDSDK_CORE_DISABLE_PROMPTS=1 CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=1
export CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1 CLOUDSDK_SURVEY_DISABLE_PROMPTS=1
export CLOUDSDK_CORE_CHECK_GCE_METADATA=false CLOUDSDK_METRICS_ENVIRONMENT=mdc-test
export HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 \
	http_proxy=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
mkdir -p "$CLOUDSDK_CONFIG"

plan 23

GC() { gcloud "$@" --region="$REGION" 2>"$TEST_DIR/gc.err"; }
pr() { mdcctl --endpoint "$EMU_URL" persistent-resources "$@"; }
show_on_fail "$TEST_DIR/gc.err"
# the body of the create POST for ID, key-sorted
sent_body() {
	jq -S --arg id "$1" 'select(.method == "POST" and (.path | endswith("/persistentResources")) and
		(.query.persistentResourceId // .query.persistent_resource_id) == $id) | .body' "$EMU_LOG"
}

# --- create with flags ------------------------------------------------------
out=$(GC ai persistent-resources create --persistent-resource-id=gflags --display-name="From flags" \
	--resource-pool-spec=replica-count=2,machine-type=n1-standard-4 --labels=team=ml --format=json); rc=$?
is "$rc" 0 "gcloud create with flags" || diag "$(cat "$TEST_DIR/gc.err")"
is "$(sent_body gflags | jq -c '[.displayName, .labels.team, .resourcePools[0].machineSpec.machineType, .resourcePools[0].replicaCount]')" \
	'["From flags","ml","n1-standard-4","2"]' "... the emulator received gcloud's body"
op=$(grep -o "projects/[^] ]*/operations/[0-9]*" "$TEST_DIR/gc.err" | head -n 1)
ok "... gcloud named its operation ($op)" test -n "$op"

# --- create with --config YAML ----------------------------------------------
out=$(GC ai persistent-resources create --persistent-resource-id=gconf \
	--config="$top_srcdir/tests/pr/config.yaml" --format=json); rc=$?
is "$rc" 0 "gcloud create with --config YAML" || diag "$(cat "$TEST_DIR/gc.err")"
# gcloud takes only resourcePools from the file (displayName, labels and
# network in it are ignored; mdcctl's --config sends them as well)
is "$(sent_body gconf | jq -c '[keys, [.resourcePools[].id], .resourcePools[1].autoscalingSpec.maxReplicaCount]')" \
	'[["resourcePools"],["cpu","gpu"],"4"]' \
	"... the emulator received the file's resource pools"

# both are RUNNING before the comparisons (the operations take 0.2 s)
state_is() { [ "$(curl -sS "$EMU_URL/v1/$PARENT/persistentResources/$1" | jq -r .state)" = "$2" ]; }
wait_until 10 state_is gflags RUNNING
wait_until 10 state_is gconf RUNNING
# --- list and describe: gcloud's JSON and mdcctl's are the same -------------
gl=$(GC ai persistent-resources list --format=json); rc=$?
is "$rc" 0 "gcloud list --format=json"
is "$(jq -r '[.[].name] | sort | join(" ")' <<<"$gl")" \
	"$PARENT/persistentResources/gconf $PARENT/persistentResources/gflags" "... lists both"
ml=$(pr list "${G[@]}" --format=json 2>&1)
is "$(jq -S 'sort_by(.name)' <<<"$gl")" "$(jq -S 'sort_by(.name)' <<<"$ml")" "mdcctl's list JSON equals gcloud's"
for id in gflags gconf; do
	gd=$(GC ai persistent-resources describe "$id" --format=json); rc=$?
	is "$rc" 0 "gcloud describe $id"
	md=$(pr describe "$id" "${G[@]}" --format=json 2>&1)
	is "$(jq -S . <<<"$md")" "$(jq -S . <<<"$gd")" "mdcctl's describe JSON of $id equals gcloud's"
done
is "$(jq -r '.resourcePools[] | select(.id == "gpu") | .machineSpec.acceleratorType' <<<"$gd")" NVIDIA_TESLA_T4 \
	"... with the file's accelerator"

# --- operations describe ------------------------------------------------------
opid=${op##*/}
go=$(GC ai operations describe "$opid" --format=json); rc=$?
is "$rc" 0 "gcloud ai operations describe $opid" || diag "$(cat "$TEST_DIR/gc.err")"
is "$(jq -r '.done' <<<"$go")" true "... the create is done"
is "$(jq -r '.name' <<<"$go")" "$(curl -sS "$EMU_URL/v1/$op" | jq -r .name)" "... the operation as the emulator has it"
mo=$(mdcctl --endpoint "$EMU_URL" --format json operations describe "$op" 2>&1)
is "$(jq -S . <<<"$mo")" "$(jq -S . <<<"$go")" "mdcctl's operations describe JSON equals gcloud's"

# --- reboot -------------------------------------------------------------------
: >"$EMU_LOG"
out=$(GC ai persistent-resources reboot gflags --format=json); rc=$?
is "$rc" 0 "gcloud reboot" || diag "$(cat "$TEST_DIR/gc.err")"
is "$(jq -r 'select(.method == "POST") | .path' "$EMU_LOG")" "/v1/$PARENT/persistentResources/gflags:reboot" \
	"... POSTs :reboot"
wait_until 10 state_is gflags RUNNING
is "$(GC ai persistent-resources describe gflags --format='value(state)')" RUNNING "... and the resource is RUNNING again"

# --- delete -------------------------------------------------------------------
out=$(GC ai persistent-resources delete gflags --format=json); rc=$?
is "$rc" 0 "gcloud delete" || diag "$(cat "$TEST_DIR/gc.err")"
wait_until 10 state_is gflags null
gl=$(GC ai persistent-resources list --format=json)
is "$(jq -r '[.[].name] | join(" ")' <<<"$gl")" "$PARENT/persistentResources/gconf" "... the list no longer has it"
is "$(pr list "${G[@]}" --format=json 2>&1 | jq -S .)" "$(jq -S . <<<"$gl")" "... nor mdcctl's, the same JSON"
