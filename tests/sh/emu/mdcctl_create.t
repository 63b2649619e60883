#!/usr/bin/env bash
# mdcctl create from the create page's JSON (the REST body: a GPU pool
# drawing from a reservation, a flex-start pool, Filestore and Lustre
# mounts), and --fallback-profiles walking hardware profiles as the
# service's users do when capacity is short: a create whose operation fails
# (code 3) or that leaves the cluster in ERROR is followed by the deletion
# of that cluster and the next profile; a cluster in ERROR already holding
# the ID (409 on the create) is deleted first; a healthy one never is.
# A server here answers as the service does (clusterStatus, 409 "existing
# ModelDevelopmentCluster with the same ID"); the emulator's operation:fail
# fault and its POST fault dice are the same failures from it.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 46
NAME=projects/proj/locations/us-central1/modelDevelopmentClusters/g1
srv=$TEST_DIR/srv
mkdir -p "$srv"

# profile FILE MACHINE [EXTRA-POOL-JQ]: a create body (snake_case, as the
# create page writes it) whose GPU pool runs on MACHINE
profile() {
	jq -n --arg m "$2" '{
	  display_name: "gpu cluster",
	  network: {network: "projects/proj/global/networks/default",
	            subnetwork: "projects/proj/regions/us-central1/subnetworks/default"},
	  node_pools: [
	    {id: "gpu", machine_spec: {machine_type: $m, accelerator_type: "NVIDIA_H100_80GB", accelerator_count: 8,
	       reservation_affinity: {reservation_affinity_type: "SPECIFIC_RESERVATION",
	         key: "compute.googleapis.com/reservation-name",
	         values: ["projects/proj/zones/us-central1-a/reservations/r1"]}},
	     provisioning_model: "RESERVATION", scaling_spec: {min_node_count: 2, max_node_count: 2},
	     zone: "us-central1-a", enable_public_ips: true,
	     boot_disk: {boot_disk_type: "hyperdisk-balanced", boot_disk_size_gb: 100},
	     lustres: ["projects/proj/locations/us-central1-a/instances/lustre1"],
	     filestores: ["projects/proj/locations/us-central1-a/instances/data"]},
	    {id: "flex", machine_spec: {machine_type: $m, accelerator_type: "NVIDIA_H100_80GB", accelerator_count: 8},
	     provisioning_model: "FLEX_START", flex_start_max_duration: "86400s",
	     scaling_spec: {min_node_count: 0, max_node_count: 4}, zone: "us-central1-a"},
	    {id: "login", machine_spec: {machine_type: "n2-standard-8"},
	     scaling_spec: {min_node_count: 1, max_node_count: 1}, zone: "us-central1-a", enable_public_ips: true,
	     boot_disk: {boot_disk_type: "pd-standard", boot_disk_size_gb: 100}}],
	  orchestrator_spec: {slurm_spec: {
	    home_directory_storage: "projects/proj/locations/us-central1-a/instances/home",
	    partitions: [{id: "gpu", node_pool_ids: ["gpu", "flex"]}],
	    default_partition_id: "gpu", login_node_pool_id: "login"}}}' >"$TEST_DIR/$1"
}
profile a4.json a4-highgpu-8g
profile a4e.json a4x-highgpu-4g
profile a3.json a3-megagpu-8g

# The service, as its users see it: a create of a pool on a machine type
# named in $srv/nocap fails after it was accepted, the cluster kept in
# ERROR: with the operation's error (mode op) or a finished operation and
# the cluster's status error (mode state).  Every request is a line of
# $srv/log: METHOD CODE.
python3 - "$srv" "$TEST_DIR/port" <<'PY' &
import http.server, json, os, sys, urllib.parse
d, pf = sys.argv[1], sys.argv[2]
def load(n):
    p = os.path.join(d, n)
    return json.load(open(p)) if os.path.exists(p) else None
def save(n, o):
    json.dump(o, open(os.path.join(d, n), 'w'))
class H(http.server.BaseHTTPRequestHandler):
    def answer(self, code, obj):
        open(os.path.join(d, 'log'), 'a').write('%s %d\n' % (self.command, code))
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers(); self.wfile.write(body)
    def path_(self): return urllib.parse.urlparse(self.path).path
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        if load('cluster'):
            return self.answer(409, {'error': {'code': 409, 'status': 'ALREADY_EXISTS',
                'message': 'existing ModelDevelopmentCluster with the same ID'}})
        nocap = dict(l.split() for l in open(os.path.join(d, 'nocap')) if l.strip()) if os.path.exists(os.path.join(d, 'nocap')) else {}
        pools = body.get('node_pools') or body.get('nodePools')
        mode = next((nocap[m] for m in [(p.get('machine_spec') or p.get('machineSpec'))['machine_type'] for p in pools] if m in nocap), None)
        cl = dict(body, name=self.path_()[len('/v1beta1/'):] + '/g1',
                  clusterStatus={'state': 'ERROR' if mode else 'RUNNING', 'detail': 'provisioning failed' if mode else 'ready'})
        if mode:
            cl['clusterStatus']['error'] = {'code': 3, 'message': 'no capacity for the node pool'}
        save('cluster', cl)
        n = len(os.listdir(d))
        op = {'name': 'projects/123/locations/us-central1/operations/%d' % n, 'done': True}
        if mode == 'op':
            op['error'] = {'code': 3, 'message': 'Failed to create the node pool: no capacity'}
        save('op%d' % n, op)
        self.answer(200, {'name': op['name'], 'done': False})
    def do_GET(self):
        p = self.path_()
        if '/operations/' in p:
            return self.answer(200, load('op' + p.rsplit('/', 1)[1]))
        cl = load('cluster')
        if not cl:
            return self.answer(404, {'error': {'code': 404, 'status': 'NOT_FOUND', 'message': 'not found'}})
        self.answer(200, cl)
    def do_DELETE(self):
        os.remove(os.path.join(d, 'cluster'))
        self.answer(200, {'name': 'projects/123/locations/us-central1/operations/del', 'done': True})
    def log_message(self, *a): pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
open(pf + '.tmp', 'w').write(str(s.server_port)); os.rename(pf + '.tmp', pf)
s.serve_forever()
PY
spid=$!
at_exit "kill $spid 2>/dev/null"
for _ in $(seq 50); do [ -s "$TEST_DIR/port" ] && break; sleep 0.1; done
export MDC_ENDPOINT=http://127.0.0.1:$(cat "$TEST_DIR/port") MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=$NAME
C() { M --cluster "$NAME" create "$@" >"$TEST_DIR/out" 2>"$TEST_DIR/err"; }
reqs() { cut -d' ' -f1,2 "$srv/log" | tr '\n' ' ' | sed 's/ $//'; }
reset() { rm -f "$srv/cluster" "$srv/log" "$srv"/op*; : >"$srv/log"; printf '%s\n' "$@" >"$srv/nocap"; }

# --- the create page's JSON, as a file or with --config ------------------
reset
C "$TEST_DIR/a3.json"; rc=$?
is "$rc" 0 "create FILE: the create page's GPU body is accepted" || diag "$(cat "$TEST_DIR/err")"
reset
C --config "$TEST_DIR/a3.json"; rc=$?
is "$rc" 0 "create --config FILE" || diag "$(cat "$TEST_DIR/err")"
is "$(jq -c '[.node_pools[0] | .provisioning_model, .machine_spec.reservation_affinity.values[0], .lustres[0], .filestores[0]],
	[.node_pools[1] | .provisioning_model, .flex_start_max_duration]' "$srv/cluster" | tr '\n' ' ')" \
	'["RESERVATION","projects/proj/zones/us-central1-a/reservations/r1","projects/proj/locations/us-central1-a/instances/lustre1","projects/proj/locations/us-central1-a/instances/data"] ["FLEX_START","86400s"] ' \
	"... sent with its reservation, flex start, Lustre and Filestore"
out=$(M nodepool list 2>&1)
like "$out" "^gpu	a3-megagpu-8g	.*	provisioning=RESERVATION, reservation SPECIFIC_RESERVATION projects/proj/zones/us-central1-a/reservations/r1$" \
	"nodepool list shows a pool's provisioning model and reservation"
like "$out" "^flex	.*	provisioning=FLEX_START, at most 86400s$" "... and a flex-start pool's model and duration"
like "$(M nodepool show gpu 2>&1)" "	provisioning=RESERVATION, reservation SPECIFIC_RESERVATION " "nodepool show: the same"
reset
C --from-file "$TEST_DIR/a3.json"; rc=$?
is "$rc" 0 "create --from-file FILE"

# --- the first profile fails, its ERROR cluster goes, the next comes up --
reset "a4-highgpu-8g op"
C --config "$TEST_DIR/a4.json" --fallback-profiles "$TEST_DIR/a3.json"; rc=$?
is "$rc" 0 "--fallback-profiles: the second profile comes up" || diag "$(cat "$TEST_DIR/err")"
like "$(cat "$TEST_DIR/out")" "^created $NAME with profile .*/a3.json \(2 of 2\)$" "... the summary names it"
err=$(cat "$TEST_DIR/err")
like "$err" "profile .*/a4.json \(1 of 2\): creating cluster" "progress: the first profile"
like "$err" "profile .*/a4.json failed: .*code 3: Failed to create the node pool: no capacity" "... its failure, with the operation's code"
like "$err" "deleting cluster '$NAME', left in ERROR" "... the leftover cluster is deleted"
like "$err" "profile .*/a3.json \(2 of 2\): creating cluster" "... then the next profile"
is "$(reqs)" "POST 200 GET 200 GET 200 DELETE 200 POST 200 GET 200 GET 200" \
	"requests: create, its operation, the ERROR cluster, delete, create again"
is "$(jq -r '.node_pools[0].machine_spec.machine_type + " " + .clusterStatus.state' "$srv/cluster")" \
	"a3-megagpu-8g RUNNING" "the cluster is the second profile's"

# a finished create that leaves the cluster in ERROR is a failure too
reset "a4-highgpu-8g state"
C --config "$TEST_DIR/a4.json" --fallback-profiles "$TEST_DIR/a3.json"; rc=$?
is "$rc" 0 "a create that leaves the cluster in ERROR is followed by the next profile"
like "$(cat "$TEST_DIR/err")" "a4.json failed: the cluster is in ERROR: no capacity for the node pool" \
	"... saying why (clusterStatus.error)"
is "$(grep -c '^DELETE' "$srv/log")" 1 "... after deleting the ERROR cluster"

# --- a cluster in ERROR left by an earlier run holds the ID: 409 ---------
reset
profile left.json a4-highgpu-8g
jq --arg n "$NAME" '. + {name: $n, clusterStatus: {state: "ERROR", error: {code: 3, message: "old"}}}' \
	"$TEST_DIR/left.json" >"$srv/cluster"
C --config "$TEST_DIR/a3.json" --fallback-profiles "$TEST_DIR/a4.json"; rc=$?
is "$rc" 0 "a 409 from an ERROR leftover: deleted, the same profile tried again" || diag "$(cat "$TEST_DIR/err")"
is "$(reqs)" "POST 409 GET 200 DELETE 200 POST 200 GET 200 GET 200" "... requests: 409, read, delete, create" ||
	diag "$(cat "$TEST_DIR/err")"
like "$(cat "$TEST_DIR/out")" "with profile .*/a3.json \(1 of 2\)$" "... and the first profile is the one used"

# --- a healthy cluster holding the ID is never deleted -------------------
reset
jq --arg n "$NAME" '. + {name: $n, clusterStatus: {state: "RUNNING"}}' "$TEST_DIR/left.json" >"$srv/cluster"
C --config "$TEST_DIR/a3.json" --fallback-profiles "$TEST_DIR/a4.json"; rc=$?
is "$rc" 9 "a RUNNING cluster with the ID: conflict (exit 9)"
like "$(cat "$TEST_DIR/err")" "is RUNNING after a failed create: not deleted" "... not deleted, and says so"
is "$(grep -c '^DELETE' "$srv/log")" 0 "... no DELETE was sent"

# --- every profile fails ---------------------------------------------------
reset "a4-highgpu-8g op" "a4x-highgpu-4g state"
C --config "$TEST_DIR/a4.json" --fallback-profiles "$TEST_DIR/a4e.json"; rc=$?
is "$rc" 6 "every profile failed: exit 6 (operation failed)"
like "$(cat "$TEST_DIR/err")" "not created: every profile failed: .*a4.json \(.*no capacity\); .*a4e.json \(the cluster is in ERROR: no capacity for the node pool\)" \
	"... the summary names each profile's failure"
ok "... and no failed cluster is left" test ! -e "$srv/cluster"

# --- refused before any request -------------------------------------------
reset
echo '{"node_pools": [' >"$TEST_DIR/bad.json"
C --config "$TEST_DIR/a3.json" --fallback-profiles "$TEST_DIR/bad.json"; rc=$?
isnt "$rc" 0 "a broken profile file is refused"
is "$(reqs)" "" "... before any request"

# --- the emulator's faults: failed operations, a refused first POST -------
emu_up --fault operation:fail
emu_standard_cluster >"$TEST_DIR/std.json"
out=$(MDC_ENDPOINT=$EMU_URL M --cluster "$EMU_PARENT/modelDevelopmentClusters/e1" create \
	--config "$TEST_DIR/std.json" --fallback-profiles "$TEST_DIR/std.json" 2>&1); rc=$?
# (whether the failed create is removed or kept in ERROR, whose deletion
# then fails as well under this fault, the result is a failure, exit 6)
is "$rc" 6 "emulator, operation:fail: the create fails (exit 6)"
like "$out" "profile .*std.json failed: operation .* failed: code 13: " "... the operation's failure is named"
emu_stop
# seed 3 of the fault dice: the first POST gets 503, the second goes through
emu_up --fault POST:503:0.5 --seed 3
cp "$TEST_DIR/std.json" "$TEST_DIR/std2.json"
out=$(MDC_ENDPOINT=$EMU_URL M --cluster "$EMU_PARENT/modelDevelopmentClusters/e1" create \
	--config "$TEST_DIR/std.json" --fallback-profiles "$TEST_DIR/std2.json" 2>&1); rc=$?
is "$rc" 0 "emulator, a refused first create (503): the next profile comes up" || diag "$out"
like "$(tr '\n' '|' <<<"$out")" "std.json failed: UNAVAILABLE: [^|]*\|[^|]*trying the next profile\|.*\|created $EMU_PARENT/modelDevelopmentClusters/e1 with profile [^|]*std2.json \(2 of 2\)" \
	"... with progress and summary"

# --- the emulator's stockout: a failed create kept in ERROR, 409 on retry --
# (its fault create:stockout[:TYPE]; skipped, counted, by an emulator
# without it)
if "$(emu_bin)" --help 2>&1 | grep -q 'create:stockout'; then
	emu_stop
	emu_up --fault create:stockout:a4-highgpu-8g
	E=$EMU_PARENT/modelDevelopmentClusters/s1
	out=$(MDC_ENDPOINT=$EMU_URL M --cluster "$E" create --config "$TEST_DIR/a4.json" \
		--fallback-profiles "$TEST_DIR/a3.json" 2>&1); rc=$?
	is "$rc" 0 "emulator stockout: the next profile comes up" || diag "$out"
	like "$(tr '\n' '|' <<<"$out")" "a4.json failed: [^|]*code 8: [^|]*\|[^|]*deleting cluster '$E', left in ERROR\|[^|]*deleted cluster" \
		"... after the ERROR cluster of the stockout was deleted"
	is "$(jq -r '.nodePools[0].machineSpec.machineType' <<<"$(emu_curl "$EMU_CLUSTERS/s1")")" a3-megagpu-8g \
		"... and the cluster is the second profile's"
	# a stockout left by a plain create holds the ID: 409, deleted, tried again
	MDC_ENDPOINT=$EMU_URL M --cluster "$EMU_PARENT/modelDevelopmentClusters/s2" create "$TEST_DIR/a4.json" >/dev/null 2>&1
	out=$(MDC_ENDPOINT=$EMU_URL M --cluster "$EMU_PARENT/modelDevelopmentClusters/s2" create \
		--config "$TEST_DIR/a3.json" --fallback-profiles "$TEST_DIR/a4.json" 2>&1); rc=$?
	is "$rc" 0 "emulator: a 409 from a stockout left in ERROR" || diag "$out"
	like "$(tr '\n' '|' <<<"$out")" "already exists\|[^|]*left in ERROR\|.*with profile [^|]*a3.json \(1 of 2\)" \
		"... the leftover deleted, the first profile created"
else
	for i in 1 2 3 4 5; do skip "emulator stockout case $i" "this mdc-emulator has no --fault create:stockout"; done
fi

# --- update --display-name: the published resource lets it change alone ---
emu_stop
emu_up
emu_create_cluster d1 "$TEST_DIR/std.json" >/dev/null || diag "cannot create d1"
export MDC_ENDPOINT=$EMU_URL MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/d1
: >"$EMU_LOG"
out=$(M update --display-name "training, 2nd try" 2>&1); rc=$?
is "$rc" 0 "update --display-name" || diag "$out"
is "$(jq -c 'select(.method == "PATCH") | [.query.updateMask, .body]' "$EMU_LOG")" \
	'["display_name",{"display_name":"training, 2nd try"}]' \
	"... one PATCH with updateMask display_name" || diag "$(cat "$EMU_LOG")"
is "$(emu_curl "$EMU_CLUSTERS/d1" | jq -r .displayName)" "training, 2nd try" "... and the cluster has the new name"
out=$(M update --display-name "$(printf 'x%.0s' $(seq 129))" 2>&1); rc=$?
is "$rc" 3 "a 129-character display name is refused before sending (exit 3)" || diag "$out"
like "$out" "display_name is 129 characters long" "... naming the limit"
out=$(M update --display-name x --update-mask labels 2>&1); rc=$?
is "$rc" 2 "--display-name with --update-mask is a usage error"

# the published schema refuses a field the service does not have before
# anything is sent, naming it as the service names it
if jq -e '.node_pools' "$TEST_DIR/std.json" >/dev/null 2>&1; then
	jq '.node_pools[0].machine_spec.accelerator_kind = "x"' "$TEST_DIR/std.json" >"$TEST_DIR/unknown.json"
else
	jq '.nodePools[0].machineSpec.acceleratorKind = "x"' "$TEST_DIR/std.json" >"$TEST_DIR/unknown.json"
fi
: >"$EMU_LOG"
out=$(MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/d9 M create "$TEST_DIR/unknown.json" 2>&1); rc=$?
like "$rc:$out" "^3:.*Unknown name \"accelerator_kind\" at 'model_development_cluster.node_pools\[0\].machine_spec'" \
	"create refuses a field the published schema lacks, naming it"
is "$(grep -c '"method":"POST"' "$EMU_LOG")" 0 "... and sends nothing"
