#!/usr/bin/env bash
# mdcctl pipelines run|describe|list|cancel against the emulator: the exact
# v1beta1 request for each timeout behaviour (compiled YAML loaded into
# pipeline_spec with its types), the console link, and the refusals: no
# custom service account, unknown resource, bad parameters (nothing sent).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq not installed"
D=$top_srcdir/tests/pr
emu_pr_env
PARENT=projects/proj/locations/us-central1
# this test looks at running jobs (pr_pipeline_life.t follows them to the
# end): their tasks run longer than the test
curl -sS -X POST -H 'Content-Type: application/json' --data '{"taskMs": 600000}' \
	"$EMU_URL/emulator/v1/pipelineJobs:timing" >/dev/null

plan 28

m() { mdcctl --endpoint "$EMU_URL" "$@"; }
job_posts() { jq -r 'select(.method == "POST" and (.path | endswith("/pipelineJobs"))) | .path' "$EMU_LOG" | wc -l; }
sent_job() {	# the body of the create POST with ?pipeline_job_id=$1
	jq -S --arg id "$1" 'select(.method == "POST" and (.path | endswith("/pipelineJobs")) and
		.query.pipeline_job_id == $id) | .body' "$EMU_LOG"
}

ok "a persistent resource with the custom service account" \
	m persistent-resources create "${G[@]}" --persistent-resource-id=fixed-pr \
	--resource-pool-spec=replica-count=1,machine-type=n1-standard-4 --enable-custom-service-account
ok "a persistent resource without it" \
	m persistent-resources create "${G[@]}" --persistent-resource-id=nosa-pr \
	--resource-pool-spec=replica-count=1,machine-type=n1-standard-4

run_fail() {
	m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" --persistent-resource fixed-pr \
		--wait-time 10m --on-timeout fail --pipeline-root gs://bucket/root \
		--parameter project_id=proj --parameter learning_rate=0.01 --parameter epochs=5 \
		--display-name nightly --job-id run-fail "$@"
}
out=$(run_fail 2>&1)
is "$?" 0 "pipelines run (on-timeout fail) succeeds"
sent_job run-fail >"$TEST_DIR/fail.body"
jq -S 'del(.pipeline_spec)' "$TEST_DIR/fail.body" >"$TEST_DIR/fail.got"
jq -S . "$D/pipeline-fail.json" >"$TEST_DIR/fail.want"
files_eq "the request is exactly P5's (FAIL)" "$TEST_DIR/fail.got" "$TEST_DIR/fail.want"
jq -S .pipeline_spec "$TEST_DIR/fail.body" >"$TEST_DIR/spec.got"
jq -S . "$D/pipeline-spec.json" >"$TEST_DIR/spec.want"
files_eq "pipeline_spec is the compiled YAML with its types (as PyYAML loads it)" \
	"$TEST_DIR/spec.got" "$TEST_DIR/spec.want"
is "$(jq -r 'select(.query.pipeline_job_id == "run-fail") | .path' "$EMU_LOG")" \
	"/v1beta1/$PARENT/pipelineJobs" "the job is POSTed to v1beta1"
is "$(jq -r 'select(.method == "GET" and (.path | startswith("/v1beta1/")) and
	(.path | endswith("/fixed-pr"))) | .path' "$EMU_LOG" | head -1)" \
	"/v1beta1/$PARENT/persistentResources/fixed-pr" "the persistent resource is checked first"
like "$out" "View Pipeline Run in Google Cloud console: https://console.cloud.google.com/vertex-ai/locations/us-central1/pipelines/runs/run-fail\?project=proj" \
	"run prints the console link"

out=$(m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" \
	--persistent-resource "$PARENT/persistentResources/fixed-pr" \
	--wait-time 1h30m --on-timeout fall-back-to-on-demand --pipeline-root gs://bucket/root \
	--parameter project_id=proj --parameter learning_rate=.5 --parameter use_gpu=true \
	--parameter 'tags=["x","y"]' --job-id run-fallback --format json 2>&1)
is "$?" 0 "pipelines run (fall-back-to-on-demand, full resource name) succeeds"
sent_job run-fallback | jq -S 'del(.pipeline_spec)' >"$TEST_DIR/fb.got"
jq -S . "$D/pipeline-fallback.json" >"$TEST_DIR/fb.want"
files_eq "the request is exactly P5's (FALL_BACK_TO_ON_DEMAND, typed parameters)" \
	"$TEST_DIR/fb.got" "$TEST_DIR/fb.want"
is "$(printf '%s' "$out" | jq -r .consoleLink)" \
	"https://console.cloud.google.com/vertex-ai/locations/us-central1/pipelines/runs/run-fallback?project=proj" \
	"--format json gives the console link"

# refusals
before=$(job_posts)
out=$(m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" --persistent-resource nosa-pr \
	--wait-time 10m --on-timeout fail --pipeline-root gs://b/r --parameter project_id=p \
	--parameter learning_rate=1 2>&1)
isnt "$?" 0 "a resource without the custom service account is refused"
like "$out" "persistent resource 'projects/proj/locations/us-central1/persistentResources/nosa-pr' does not have the custom service account enabled" \
	"the refusal says why and what to do"
out=$(m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" --persistent-resource ghost-pr \
	--wait-time 10m --on-timeout fail --pipeline-root gs://b/r --parameter project_id=p \
	--parameter learning_rate=1 2>&1)
like "$out" "persistent resource '.*/ghost-pr' not found: create it with mdcctl persistent-resources create --enable-custom-service-account" \
	"an unknown resource is refused clearly"
nreq=$(wc -l <"$EMU_LOG")
out=$(m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" --persistent-resource fixed-pr \
	--wait-time 10m --on-timeout fail --pipeline-root gs://b/r --parameter project_id=p 2>&1)
like "$out" "the pipeline needs parameter 'learning_rate'" "a missing required parameter is refused"
out=$(m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" --persistent-resource fixed-pr \
	--wait-time soon --on-timeout fail --pipeline-root gs://b/r 2>&1)
like "$out" "duration 'soon'" "a bad --wait-time is refused"
out=$(m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" --persistent-resource fixed-pr \
	--wait-time 1m --on-timeout retry --pipeline-root gs://b/r 2>&1)
like "$out" "--on-timeout 'retry': use fail or fall-back-to-on-demand" "a bad --on-timeout is refused"
is "$(wc -l <"$EMU_LOG")" "$nreq" "refusals of local input send no request at all"
is "$(job_posts)" "$before" "no refused run created a job"

# the emulator enforces P5 on clients that do not check
code=$(curl -sS -o "$TEST_DIR/err.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	--data "{\"pipelineSpec\":{\"root\":{}},\"runtimeConfig\":{\"gcsOutputDirectory\":\"gs://b\",\"defaultRuntime\":{\"persistentResourceRuntimeDetail\":{\"persistentResourceName\":\"$PARENT/persistentResources/nosa-pr\"}}}}" \
	"$EMU_URL/v1beta1/$PARENT/pipelineJobs")
is "$code/$(jq -r .error.status "$TEST_DIR/err.json")" "400/FAILED_PRECONDITION" \
	"the emulator refuses a resource without the custom service account"

# describe, list, cancel
wait_until 30 sh -c "mdcctl --endpoint '$EMU_URL' pipelines describe run-fail --project proj --region us-central1 | grep -q PIPELINE_STATE_RUNNING"
out=$(m pipelines describe run-fail "${G[@]}")
like "$out" "state: +PIPELINE_STATE_RUNNING" "describe shows the job running"
like "$out" "persistentResource: +$PARENT/persistentResources/fixed-pr" "describe shows its persistent resource"
m pipelines describe run-fail "${G[@]}" --format json | jq -S .pipelineSpec >"$TEST_DIR/spec.back"
files_eq "describe --format json gives the pipeline spec back unchanged" "$TEST_DIR/spec.back" "$TEST_DIR/spec.want"
out=$(m pipelines list "${G[@]}")
like "$out" "run-fail +PIPELINE_STATE_RUNNING +nightly +fixed-pr" "list shows the jobs"
is "$(m pipelines list "${G[@]}" --format json | jq -r '[.[].name] | sort | join(" ")')" \
	"$PARENT/pipelineJobs/run-fail $PARENT/pipelineJobs/run-fallback" "list --format json names both jobs"
ok "cancel" m pipelines cancel run-fail "${G[@]}"
is "$(jq -r 'select(.method == "POST" and (.path | endswith(":cancel"))) | .path' "$EMU_LOG")" \
	"/v1beta1/$PARENT/pipelineJobs/run-fail:cancel" "cancel POSTs :cancel"
wait_until 30 sh -c "mdcctl --endpoint '$EMU_URL' pipelines describe run-fail --project proj --region us-central1 | grep -q PIPELINE_STATE_CANCELLED"
like "$(m pipelines describe run-fail "${G[@]}")" "state: +PIPELINE_STATE_CANCELLED" "the job ends CANCELLED"
