#!/usr/bin/env bash
# slurm-lab --managed --rest: a real slurmrestd beside slurmctld on a UNIX
# socket of the lab, and the emulator's callSlurmRestApi forwarding to it
# with the service's shape ({method, path, body} -> {status,
# structuredBody}); its refusals (method, path, cluster, a token without
# .run) are answered before anything reaches slurmrestd, and once down
# has stopped slurmrestd the call is 503.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
command -v slurmrestd >/dev/null || skip_all "slurmrestd is not installed (scripts/install-deps)"
lab_up --managed --rest
plan 28
log=$LAB_DIR/emu/requests.log
show_on_fail "$log" "$LAB_DIR/log/slurmrestd.out" "$TEST_DIR/lab-up.err"
VER=v0.0.38
CALL=$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER:callSlurmRestApi

# call JSON: POST it to callSlurmRestApi; the answer in $TEST_DIR/b, the
# HTTP code printed
call() {
	lab_curl -o "$TEST_DIR/b" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
		--data-binary "$1" "$CALL"
}
get() { call "{\"method\":\"HTTP_METHOD_GET\",\"path\":\"/slurm/$VER/$1\"}"; }
b() { jq -c "$@" "$TEST_DIR/b"; }
err() { jq -r '"\(.error.code) \(.error.status) \(.error.details[1].fieldViolations[0].field // "-")"' "$TEST_DIR/b"; }

is "$MDC_SLURMRESTD" "unix:$LAB_DIR/run/slurmrestd.sock" "up exports slurmrestd's socket in the lab's run dir"
rest_pid=$(<"$LAB_DIR/run/slurmrestd.pid")
is "$("$LAB_SCRIPT" status "$LAB_DIR" | grep '^slurmrestd ')" "slurmrestd running pid $rest_pid url $MDC_SLURMRESTD" \
	"status shows slurmrestd running"

# --- the forwarded answers, against the real daemons -------------------------
is "$(get ping)" 200 "GET ping: 200"
is "$(b '[.status, .structuredBody.pings[0].ping, .structuredBody.meta.plugin.type]')" \
	"[200,\"UP\",\"openapi/$VER\"]" "status 200 and slurmrestd's own ping body (keys as Slurm spells them)"
rel=$(b -r .structuredBody.meta.Slurm.release)
is "slurm-wlm $rel" "$(command scontrol --version)" "the release slurmrestd reports is the installed Slurm's"

is "$(get partitions)" 200 "GET partitions: 200"
is "$(b -r '[.structuredBody.partitions[].name] | sort | join(" ")')" \
	"$(sinfo -h -o %R | sort | tr '\n' ' ' | sed 's/ $//')" "the partitions are slurmctld's"
is "$(get nodes)" 200 "GET nodes: 200"
is "$(b -r '.structuredBody.nodes[] | "\(.name) \(.state)"')" "$(sinfo -h -N -o '%N %t' | head -1)" \
	"the node and its state are slurmctld's"

# a job submitted through the call (POST with a body), listed, cancelled (DELETE)
sub='{"method":"HTTP_METHOD_POST","path":"/slurm/'$VER'/job/submit","body":{"script":"#!/bin/sh\nsleep 60\n","job":{"partition":"debug","name":"rest-t","current_working_directory":"/tmp","environment":{"PATH":"/bin:/usr/bin"}}}}'
is "$(call "$sub")" 200 "POST job/submit: 200"
job=$(b -r .structuredBody.job_id)
is "$(squeue -h -j "$job" -o %j)" rest-t "slurmctld has the submitted job"
is "$(get jobs) $(b -r "[.structuredBody.jobs[] | select(.job_id == $job) | .name] | join(\",\")")" "200 rest-t" \
	"GET jobs lists it"
is "$(call '{"method":"HTTP_METHOD_DELETE","path":"/slurm/'$VER'/job/'"$job"'"}') $(b .status)" "200 200" \
	"DELETE job/ID: 200"
cancelled() { scontrol show job "$job" | grep -q 'JobState=CANCELLED'; }
wait_until 10 cancelled
is "$(scontrol show job "$job" | grep -o 'JobState=[A-Z]*')" JobState=CANCELLED "slurmctld cancelled it"

# slurmrestd's own errors come back inside a 200, as the service does
is "$(get job/999999) $(b '[.status >= 400, .structuredBody.errors[0].error]')" \
	'200 [true,"Invalid job id specified"]' "an unknown job: slurmrestd's error in structuredBody"
is "$(call '{"method":"HTTP_METHOD_GET","path":"/slurm/v0.0.99/ping"}') $(b -c '[.status, has("structuredBody")]')" \
	"200 [404,false]" "a data parser slurmrestd lacks: status 404, no structuredBody (its answer is not JSON)"

# --- refused before slurmrestd ------------------------------------------------
n=$(grep -c . "$LAB_DIR/log/slurmrestd.out")
is "$(call '{"method":"HTTP_METHOD_PUT","path":"/slurm/'$VER'/ping"}') $(err)" "400 400 INVALID_ARGUMENT method" \
	"an unknown method: 400 on field method"
is "$(call '{"path":"/slurm/'$VER'/ping"}') $(err)" "400 400 INVALID_ARGUMENT method" "no method: 400"
is "$(call '{"method":"HTTP_METHOD_GET","path":"/openapi/v3"}') $(err)" "400 400 INVALID_ARGUMENT path" \
	"a path outside /slurm/ and /slurmdb/: 400 on field path"
is "$(call '{"method":"HTTP_METHOD_GET","path":"/slurm/../openapi/v3"}') $(err)" "400 400 INVALID_ARGUMENT path" \
	"a dot segment out of /slurm/: 400"
is "$(call '{"method":"HTTP_METHOD_GET","path":"/slurm/'$VER'/ping HTTP/1.1\r\nX-A: b"}') $(err)" \
	"400 400 INVALID_ARGUMENT path" "a path that would add a header: 400"
is "$(call '{"method":"HTTP_METHOD_POST","path":"/slurm/'$VER'/job/submit"}') $(err)" "400 400 INVALID_ARGUMENT body" \
	"POST without a body: 400 on field body"
lab_call=$CALL CALL=${CALL/\/lab:call/\/nope:call}
is "$(call '{"method":"HTTP_METHOD_GET","path":"/slurm/'$VER'/ping"}') $(err)" "404 404 NOT_FOUND -" \
	"an unknown cluster: 404"
CALL=$lab_call
is "$(grep -c . "$LAB_DIR/log/slurmrestd.out")" "$n" "none of them reached slurmrestd (its log did not grow)"

# --- the permission: a reader's token has no modelDevelopmentClusters.run -------
# (a second emulator forwarding to the same slurmrestd, with a reader token)
emu_up --token admin-t --read-only-token reader-t --slurmrestd "$MDC_SLURMRESTD"
EMU_AUTH="Authorization: Bearer admin-t"
emu_create_cluster c1 >/dev/null || fail "create c1"
rcall() {
	curl -sS -o "$TEST_DIR/b" -w '%{http_code}' -X POST -H "Authorization: Bearer $1" \
		--data-binary '{"method":"HTTP_METHOD_GET","path":"/slurm/'$VER'/ping"}' "$EMU_CLUSTERS/c1:callSlurmRestApi"
}
is "$(rcall reader-t) $(jq -r '.error.status + " " + (.error.message | test("modelDevelopmentClusters.run") | tostring)' "$TEST_DIR/b")" \
	"403 PERMISSION_DENIED true" "a read-only token: 403 naming modelDevelopmentClusters.run"
is "$(rcall admin-t) $(b '[.status, .structuredBody.pings[0].ping]')" '200 [200,"UP"]' "the admin token is forwarded"

# --- down stops slurmrestd; the call is then 503 -------------------------------
lab_down
# (a zombie waiting for init to reap it has exited)
running() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"; }
nok "down stopped slurmrestd" running "$rest_pid"
is "$(rcall admin-t) $(jq -r .error.status "$TEST_DIR/b")" "503 UNAVAILABLE" "slurmrestd down: 503 UNAVAILABLE"
