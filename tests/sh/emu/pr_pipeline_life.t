#!/usr/bin/env bash
# Pipeline runs that live, in the emulator: PENDING -> RUNNING -> SUCCEEDED
# with the tasks of the compiled spec in order, each needing a replica of
# the persistent resource (queued behind other runs; held by the test
# controls busyReplicas / available:false); a task that waits longer than
# task_resource_unavailable_wait_time_ms fails the run (FAIL) or runs on
# on-demand resources (FALL_BACK_TO_ON_DEMAND); cancel, delete,
# batchCancel, batchDelete; ListPipelineJobs filter / order_by / read_mask.
# Through curl and through mdcctl (pipelines wait|list|delete|cancel).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq not installed"
D=$top_srcdir/tests/pr
emu_pr_env
LOC=projects/proj/locations/us-central1
JOBS=$EMU_URL/v1beta1/$LOC/pipelineJobs

plan 62

# --timeout bounds every pipelines wait
m() { mdcctl --timeout 120 --endpoint "$EMU_URL" "$@"; }
post() {	# post URL JSON: the answer body
	curl -sS -X POST -H 'Content-Type: application/json' --data "$2" "$1"
}
job() { curl -sS "$JOBS/$1"; }
jstate() { job "$1" | jq -r '.state // .error.status'; }
# is_state ID STATE, for wait_until
is_state() { [ "$(jstate "$1")" = "$2" ]; }
# stuck ID: RUNNING, its first task PENDING (waiting for a replica)
stuck() { [ "$(job "$1" | jq -r '.state + " " + (.jobDetail.taskDetails[0].state // "")')" = "PIPELINE_STATE_RUNNING PENDING" ]; }
timing() { post "$EMU_URL/emulator/v1/pipelineJobs:timing" "{$1}" >/dev/null; }
capacity() { post "$EMU_URL/emulator/v1/persistentResources:capacity" "{\"name\": \"$LOC/persistentResources/$1\", $2}" >/dev/null; }
# run ID RESOURCE WAIT-TIME ON-TIMEOUT [flags]
run() {
	local id=$1 pr=$2 wt=$3 ot=$4
	shift 4
	m pipelines run "${G[@]}" --pipeline "$D/pipeline.yaml" --persistent-resource "$pr" \
		--wait-time "$wt" --on-timeout "$ot" --pipeline-root gs://b/r --parameter project_id=p \
		--parameter learning_rate=0.1 --job-id "$id" "$@" >/dev/null 2>&1
}

# short timings: a run is PENDING 100 ms, each task runs 300 ms
is "$(post "$EMU_URL/emulator/v1/pipelineJobs:timing" '{"pendingMs": 100, "taskMs": 300, "cancelMs": 100}' | jq -c .)" \
	'{"pendingMs":100,"taskMs":300,"cancelMs":100}' "the run timings are set through /emulator/v1/pipelineJobs:timing"
for pr in one-pr busy-pr gone-pr; do
	m persistent-resources create "${G[@]}" --persistent-resource-id=$pr \
		--resource-pool-spec=replica-count=1,machine-type=n1-standard-4 \
		--enable-custom-service-account >/dev/null 2>&1 || fail "create $pr"
done
capacity busy-pr '"busyReplicas": 1'
capacity gone-pr '"available": false'
is "$(curl -sS "$EMU_URL/emulator/v1/persistentResources:capacity?name=$LOC/persistentResources/busy-pr" | jq -c '[.busyReplicas, .freeReplicas]')" \
	'[1,0]' "busyReplicas holds the resource's only replica"
is "$(curl -sS "$EMU_URL/v1/$LOC/persistentResources" | jq -c '[.persistentResources[] | .resourcePools[0].usedReplicaCount]')" \
	'["1","0","0"]' "usedReplicaCount shows it (busy-pr, gone-pr, one-pr)"

# --- a run that succeeds ---------------------------------------------------------
run a1 one-pr 1h fail --labels=kind=ok --display-name=nightly-a1
is "$(jq -r 'select(.method == "POST" and .query.pipeline_job_id == "a1") | .path' "$EMU_LOG")" \
	"/v1beta1/$LOC/pipelineJobs" "pipelines run created a1"
m pipelines wait a1 "${G[@]}" >"$TEST_DIR/wait.out" 2>"$TEST_DIR/wait.err"
is "$?" 0 "pipelines wait exits 0 when the run SUCCEEDED"
is "$(cat "$TEST_DIR/wait.out")" "Pipeline job [$LOC/pipelineJobs/a1]: SUCCEEDED, task 2 train SUCCEEDED." \
	"it says how the run ended"
is "$(wc -c <"$TEST_DIR/wait.err")" 0 "and shows no progress when stderr is not a terminal"
a1=$(job a1)
is "$(printf '%s' "$a1" | jq -c '[.jobDetail.taskDetails[] | [.taskId, .taskName, .state, [.pipelineTaskStatus[].state]]]')" \
	'[["1","prepare","SUCCEEDED",["PENDING","RUNNING","SUCCEEDED"]],["2","train","SUCCEEDED",["PENDING","RUNNING","SUCCEEDED"]]]' \
	"the tasks ran in dependency order, each PENDING -> RUNNING -> SUCCEEDED"
is "$(printf '%s' "$a1" | jq -r '[.createTime < .startTime, .startTime <= .jobDetail.taskDetails[0].startTime,
	.jobDetail.taskDetails[0].endTime <= .jobDetail.taskDetails[1].startTime, .jobDetail.taskDetails[1].endTime <= .endTime] | all')" \
	true "createTime < startTime <= task times <= endTime"
is "$(printf '%s' "$a1" | jq -r '.error // "none"')" none "a run that succeeded has no error"

# --- runs share the replicas -----------------------------------------------------
run q1 one-pr 1h fail --labels=kind=queue
run q2 one-pr 1h fail --labels=kind=queue
wait_until 20 is_state q2 PIPELINE_STATE_SUCCEEDED
is "$(jstate q1) $(jstate q2)" "PIPELINE_STATE_SUCCEEDED PIPELINE_STATE_SUCCEEDED" "two runs on one replica both succeed"
is "$(jq -n --argjson a "$(job q1)" --argjson b "$(job q2)" \
	'$b.jobDetail.taskDetails[0].startTime >= $a.jobDetail.taskDetails[0].endTime')" true \
	"the second run's first task waited for the replica the first run held"

# --- FAIL and FALL_BACK_TO_ON_DEMAND ---------------------------------------------
run f1 busy-pr 300ms fail --labels=kind=fail
m pipelines wait f1 "${G[@]}" >"$TEST_DIR/wait.out" 2>"$TEST_DIR/wait.err"
rc=$?
isnt "$rc" 0 "pipelines wait exits non-zero when the run FAILED"
is "$(cat "$TEST_DIR/wait.err")" \
	"mdcctl: error: pipeline job '$LOC/pipelineJobs/f1' FAILED: The DAG failed because some tasks failed. The failed tasks are: [prepare]." \
	"with the run's error"
f1=$(job f1)
is "$(printf '%s' "$f1" | jq -c '[.state, .error.code, [.jobDetail.taskDetails[] | .taskName + " " + .state]]')" \
	'["PIPELINE_STATE_FAILED",9,["prepare FAILED"]]' "FAIL: the run is FAILED (code 9) and no later task started"
is "$(printf '%s' "$f1" | jq -r '.jobDetail.taskDetails[0].error | "\(.code) \(.message)"')" \
	"8 task 'prepare' waited 300 ms (task_resource_unavailable_wait_time_ms) for a free replica of persistent resource '$LOC/persistentResources/busy-pr'; its timeout behavior is FAIL" \
	"the task's error says what it waited for and why the run failed"
is "$(printf '%s' "$f1" | jq -r '(.jobDetail.taskDetails[0].endTime | sub("\\.[0-9]+Z";"")) >= (.jobDetail.taskDetails[0].createTime | sub("\\.[0-9]+Z";""))')" \
	true "the task ended after its wait"

run o1 gone-pr 300ms fall-back-to-on-demand --labels=kind=fallback
out=$(m pipelines wait o1 "${G[@]}" 2>&1)
is "$?" 0 "FALL_BACK_TO_ON_DEMAND: the run succeeds although the resource has no capacity"
like "$out" "^task prepare: no replica of persistent resource '$LOC/persistentResources/gone-pr' was free within 300 ms .*on-demand resources \(FALL_BACK_TO_ON_DEMAND\)$" \
	"pipelines wait reports the tasks that ran on on-demand resources"
is "$(job o1 | jq -c '[.jobDetail.taskDetails[] | [.state, (.pipelineTaskStatus[] | select(.state == "RUNNING") | .error.code)]]')" \
	'[["SUCCEEDED",0],["SUCCEEDED",0]]' "each task's RUNNING status carries the on-demand note (an OK status)"

# --- capacity that frees up --------------------------------------------------------
capacity one-pr '"busyReplicas": 1'
run w1 one-pr 1h fail --labels=kind=queue
wait_until 20 stuck w1
is "$(job w1 | jq -r '.state + " " + .jobDetail.taskDetails[0].state')" "PIPELINE_STATE_RUNNING PENDING" \
	"with the replica busy the task waits (the wait time is an hour)"
timing '"taskMs": 600000'	# long enough to be seen RUNNING (timings apply in flight)
capacity one-pr '"busyReplicas": 0'
is "$(job w1 | jq -r '.jobDetail.taskDetails[0].state')" RUNNING "freeing the replica starts the waiting task at once"
is "$(curl -sS "$EMU_URL/v1/$LOC/persistentResources/one-pr" | jq -r '.resourcePools[0].usedReplicaCount')" 1 \
	"the pool's usedReplicaCount counts the running task"
timing '"taskMs": 300'
wait_until 20 is_state w1 PIPELINE_STATE_SUCCEEDED
is "$(jstate w1)" PIPELINE_STATE_SUCCEEDED "and the run succeeds"

# --- cancel -----------------------------------------------------------------------
run c1 busy-pr 1h fail --labels=kind=cancel
wait_until 20 stuck c1
# a long cancel is seen CANCELLING
timing '"cancelMs": 600000'
ok "pipelines cancel" m pipelines cancel c1 "${G[@]}"
is "$(jstate c1)" PIPELINE_STATE_CANCELLING "CANCELLING first"
timing '"cancelMs": 100'
m pipelines wait c1 "${G[@]}" >"$TEST_DIR/wait.out" 2>"$TEST_DIR/wait.err"
is "$? $(cat "$TEST_DIR/wait.err")" \
	"$EXIT_OPFAILED mdcctl: error: pipeline job '$LOC/pipelineJobs/c1' CANCELLED: CANCELLED: the pipeline job was cancelled" \
	"pipelines wait exits $EXIT_OPFAILED (operation failed) on CANCELLED"
is "$(job c1 | jq -c '[.state, .error.code, .jobDetail.taskDetails[0].state]')" \
	'["PIPELINE_STATE_CANCELLED",1,"CANCELLED"]' "the run is CANCELLED with code 1 (Code.CANCELLED), its task too"
code=$(curl -sS -o "$TEST_DIR/r.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data '{}' "$JOBS/c1:cancel")
is "$code $(jq -r .error.status "$TEST_DIR/r.json")" "400 FAILED_PRECONDITION" "cancelling a finished run is refused"

# --- delete -----------------------------------------------------------------------
run d1 busy-pr 1h fail --labels=kind=delete
out=$(m pipelines delete d1 "${G[@]}" --yes 2>&1)
like "$out" "pipeline job '$LOC/pipelineJobs/d1' is PIPELINE_STATE_(PENDING|RUNNING): only a finished job can be deleted \(cancel it first\)" \
	"deleting a live run is refused"
out=$(m pipelines delete a1 "${G[@]}" </dev/null 2>&1)
like "$out" "not deleting .*give --yes" "delete without a terminal asks for --yes"
is "$(jstate a1)" PIPELINE_STATE_SUCCEEDED "and sends nothing"
out=$(m pipelines delete a1 "${G[@]}" --yes 2>&1)
like "$out" "^Deleted pipeline job \[$LOC/pipelineJobs/a1\]\.$" "delete --yes waits for the operation"
is "$(jq -r 'select(.method == "DELETE") | .path' "$EMU_LOG" | tail -1)" "/v1beta1/$LOC/pipelineJobs/a1" \
	"it sent DELETE on the job"
is "$(jstate a1)" NOT_FOUND "the run is gone"

# --- batchCancel, batchDelete --------------------------------------------------------
num=$(curl -sS "$EMU_URL/emulator/v1/projects/proj" | jq -r .projectNumber)
run x1 busy-pr 1h fail --labels=kind=batch
run x2 busy-pr 1h fail --labels=kind=batch
op=$(post "$JOBS:batchCancel" "{\"names\": [\"$LOC/pipelineJobs/x1\", \"projects/$num/locations/us-central1/pipelineJobs/x2\", \"$LOC/pipelineJobs/d1\"]}")
is "$(printf '%s' "$op" | jq -r '.metadata["@type"]')" \
	"type.googleapis.com/google.cloud.aiplatform.v1beta1.BatchCancelPipelineJobsOperationMetadata" \
	"batchCancel answers an LRO (names may use the project number)"
done_op=$(emu_wait_op "$(printf '%s' "$op" | jq -r .name)")
is "$(printf '%s' "$done_op" | jq -c '[.response["@type"], [.response.pipelineJobs[].name | sub(".*/"; "")]]')" \
	'["type.googleapis.com/google.cloud.aiplatform.v1beta1.BatchCancelPipelineJobsResponse",["x1","x2","d1"]]' \
	"its response lists the jobs"
wait_until 20 is_state d1 PIPELINE_STATE_CANCELLED
is "$(jstate x1) $(jstate x2) $(jstate d1)" \
	"PIPELINE_STATE_CANCELLED PIPELINE_STATE_CANCELLED PIPELINE_STATE_CANCELLED" "all three end CANCELLED"
run x3 busy-pr 1h fail --labels=kind=batch
code=$(curl -sS -o "$TEST_DIR/r.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	--data "{\"names\": [\"$LOC/pipelineJobs/x1\", \"$LOC/pipelineJobs/x3\"]}" "$JOBS:batchDelete")
is "$code $(jq -r .error.status "$TEST_DIR/r.json") $(jstate x1)" "400 FAILED_PRECONDITION PIPELINE_STATE_CANCELLED" \
	"batchDelete with one live run is refused and deletes nothing (atomic)"
names=$(jq -nc '[range(33) | "projects/proj/locations/us-central1/pipelineJobs/x\(.)"]')
code=$(curl -sS -o "$TEST_DIR/r.json" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	--data "{\"names\": $names}" "$JOBS:batchDelete")
like "$code $(jq -r .error.message "$TEST_DIR/r.json")" "^400 at most 32 pipeline jobs" "at most 32 jobs in a batch"
op=$(post "$JOBS:batchDelete" "{\"names\": [\"$LOC/pipelineJobs/x1\", \"$LOC/pipelineJobs/x2\"]}")
done_op=$(emu_wait_op "$(printf '%s' "$op" | jq -r .name)")
is "$(printf '%s' "$done_op" | jq -c '[.metadata["@type"], .response["@type"], (.response.pipelineJobs | length)]')" \
	'["type.googleapis.com/google.cloud.aiplatform.v1beta1.DeleteOperationMetadata","type.googleapis.com/google.cloud.aiplatform.v1beta1.BatchDeletePipelineJobsResponse",2]' \
	"batchDelete: DeleteOperationMetadata, then BatchDeletePipelineJobsResponse"
is "$(jstate x1) $(jstate x2)" "NOT_FOUND NOT_FOUND" "both runs are gone"
m pipelines cancel x3 "${G[@]}" >/dev/null 2>&1
wait_until 20 is_state x3 PIPELINE_STATE_CANCELLED

# --- ListPipelineJobs: filter, order_by, read_mask ------------------------------------
lst() {	# lst QUERY: the ids listed, in order
	curl -sS -G "$JOBS" "$@" | jq -r '[.pipelineJobs[]?.name | sub(".*/"; "")] | join(" ")'
}
is "$(lst)" "x3 d1 c1 w1 o1 f1 q2 q1" "the default order is create_time desc, as the service's"
is "$(lst --data-urlencode 'orderBy=create_time')" "q1 q2 f1 o1 w1 c1 d1 x3" "order_by create_time (ascending)"
is "$(lst --data-urlencode 'filter=state="PIPELINE_STATE_SUCCEEDED"' --data-urlencode 'orderBy=createTime')" \
	"q1 q2 o1 w1" "filter on state"
is "$(lst --data-urlencode 'filter=labels.kind="queue"' --data-urlencode 'orderBy=create_time')" "q1 q2 w1" \
	"filter on a label"
is "$(lst --data-urlencode 'filter=labels.kind="fail" OR labels.kind="fallback"' --data-urlencode 'orderBy=create_time')" \
	"f1 o1" "OR"
# AIP-160: OR binds tighter than AND
is "$(lst --data-urlencode 'filter=state="PIPELINE_STATE_SUCCEEDED" AND labels.kind="fail" OR labels.kind="fallback"')" \
	"o1" "OR binds tighter than AND (AIP-160)"
is "$(lst --data-urlencode 'filter=NOT labels.kind="queue" AND -state="PIPELINE_STATE_CANCELLED"' --data-urlencode 'orderBy=create_time')" \
	"f1 o1" "NOT and '-'"
t=$(job o1 | jq -r .createTime)
is "$(lst --data-urlencode "filter=create_time>=\"$t\" AND pipeline_job_user_id:\"*1\"" --data-urlencode 'orderBy=create_time')" \
	"o1 w1 c1 d1" "create_time comparison and a ':' wildcard"
is "$(curl -sS -G "$JOBS" --data-urlencode 'readMask=name,state' --data-urlencode 'filter=pipeline_job_user_id="q1"' | jq -c '.pipelineJobs[0] | keys')" \
	'["name","state"]' "read_mask keeps only the fields it names"
code=$(curl -sS -o "$TEST_DIR/r.json" -w '%{http_code}' -G "$JOBS" --data-urlencode 'filter=colour="red"')
is "$code $(jq -r '.error.details[1].fieldViolations[0].field' "$TEST_DIR/r.json")" "400 filter" \
	"an unsupported filter field is INVALID_ARGUMENT on 'filter'"
code=$(curl -sS -o "$TEST_DIR/r.json" -w '%{http_code}' -G "$JOBS" --data-urlencode 'filter=create_time>"yesterday"')
like "$code $(jq -r .error.message "$TEST_DIR/r.json")" "^400 filter: create_time value 'yesterday' is not an RFC 3339 time" \
	"a time that is not RFC 3339 is refused"
code=$(curl -sS -o "$TEST_DIR/r.json" -w '%{http_code}' -G "$JOBS" --data-urlencode 'orderBy=display_name')
is "$code $(jq -r '.error.details[1].fieldViolations[0].field' "$TEST_DIR/r.json")" "400 order_by" \
	"order_by takes only the documented fields"

out=$(m pipelines list "${G[@]}" --filter 'labels.kind="queue"' --sort-by '~createTime' 2>&1)
is "$(printf '%s\n' "$out" | awk 'NR > 1 { print $1 }' | tr '\n' ' ')" "w1 q2 q1 " \
	"mdcctl pipelines list --filter --sort-by ~createTime"
is "$(jq -c 'select(.method == "GET" and (.path | endswith("/pipelineJobs"))) | .query' "$EMU_LOG" | tail -1)" \
	'{"filter":"labels.kind=\"queue\"","orderBy":"create_time desc"}' \
	"it sends the filter as written and --sort-by as order_by"
n=$(wc -l <"$EMU_LOG")
out=$(m pipelines list "${G[@]}" --filter 'labels.kind=="queue"' 2>&1)
is "$? $(wc -l <"$EMU_LOG")" "$EXIT_USAGE $n" "a malformed --filter is refused before anything is sent"
out=$(m pipelines list "${G[@]}" --sort-by 'displayName' 2>&1)
like "$out" "--sort-by 'displayName': use createTime, updateTime, startTime or endTime" "an unsupported --sort-by is refused"

# --- progress on a terminal -------------------------------------------------------
# p1 waits for a replica until it is cancelled, so the wait is seen in progress
if command -v script >/dev/null; then
	run p1 busy-pr 1h fail --labels=kind=progress
	script -qec "mdcctl --timeout 120 --endpoint '$EMU_URL' pipelines wait p1 --project proj --region us-central1" \
		/dev/null >"$TEST_DIR/tty.out" 2>&1 &
	spid=$!
	at_exit "kill $spid 2>/dev/null"
	seen() { grep -q 'waiting for pipeline job \[p1\] [0-9]*s: RUNNING, task 1 prepare PENDING' "$TEST_DIR/tty.out"; }
	wait_until 60 seen
	like "$(cat "$TEST_DIR/tty.out")" "waiting for pipeline job \[p1\] [0-9]+s: RUNNING, task 1 prepare PENDING" \
		"on a terminal pipelines wait shows the run's state and current task"
	m pipelines cancel p1 "${G[@]}" >/dev/null 2>&1
	gone() { ! kill -0 "$spid" 2>/dev/null; }
	wait_until 60 gone
	like "$(cat "$TEST_DIR/tty.out")" "error: pipeline job '$LOC/pipelineJobs/p1' CANCELLED" \
		"and ends when the run is cancelled"
else
	skip "on a terminal pipelines wait shows the run's state and current task" "script(1) is not installed"
	skip "and ends when the run is cancelled" "script(1) is not installed"
fi

# --- a restart keeps the runs going (they are state, not timers) -------------------
timing '"taskMs": 600000'
run r1 one-pr 1h fail --labels=kind=restart
running_task() { [ "$(job r1 | jq -r '.jobDetail.taskDetails[0].state // ""')" = RUNNING ]; }
wait_until 30 running_task
emu_stop
EMU_DIR_NEXT=$EMU_DIR emu_start || fail "the emulator restarts on its state"
JOBS=$EMU_URL/v1beta1/$LOC/pipelineJobs
is "$(job r1 | jq -r '.state + " " + .jobDetail.taskDetails[0].state')" "PIPELINE_STATE_RUNNING RUNNING" \
	"after a restart the run is where it was"
timing '"taskMs": 100'
m pipelines wait r1 "${G[@]}" >/dev/null 2>&1
is "$? $(jstate r1)" "0 PIPELINE_STATE_SUCCEEDED" "and goes on to SUCCEEDED"
