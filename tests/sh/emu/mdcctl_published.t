#!/usr/bin/env bash
# mdcctl against the resource as Google publishes it (magic-modules
# ModelDevelopmentCluster.yaml): a server that answers only the published
# camelCase shape (clusterStatus, no top-level state) plus fields mdcctl
# does not model, today's (reservationAffinity, FLEX_START with
# flexStartMaxDuration, lustres, filestores) and an invented future one.
# describe shows the status (state, detail, error, nodes per pool) and the
# pools' provisioning; an update waits while the cluster is UPDATING; the
# full-replacement nodePools PATCH of a scale sends every field it does not
# model back exactly as the server gave it: same names, same bytes.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 25
NAME=projects/proj/locations/us-central1/modelDevelopmentClusters/g1
srv=$TEST_DIR/srv
mkdir -p "$srv"
# futureKnob is no published field: a field the service may add tomorrow.
# Its map's keys are camelCase and its number is written 2.50, which a
# client that renames keys or re-prints numbers would change.
cat >"$srv/cluster.json" <<JSON
{"name": "$NAME", "displayName": "gpu cluster",
 "network": {"network": "projects/proj/global/networks/default"},
 "clusterStatus": {"state": "RUNNING", "detail": "all node pools ready",
   "nodesStatus": [
     {"instanceName": "g1-a3-0", "nodePoolId": "a3", "nodePoolType": "NODE_POOL_TYPE_COMPUTE", "nodeState": "RUNNING", "createTime": "2026-01-01T00:00:00Z"},
     {"instanceName": "g1-a3-1", "nodePoolId": "a3", "nodePoolType": "NODE_POOL_TYPE_COMPUTE", "nodeState": "REPAIRING", "createTime": "2026-01-01T00:00:00Z"},
     {"instanceName": "g1-login-0", "nodePoolId": "login", "nodePoolType": "NODE_POOL_TYPE_LOGIN", "nodeState": "RUNNING", "createTime": "2026-01-01T00:00:00Z"}]},
 "nodePools": [
  {"id": "a3", "machineSpec": {"machineType": "a3-highgpu-8g", "acceleratorType": "NVIDIA_H100_80GB", "acceleratorCount": 8,
     "reservationAffinity": {"reservationAffinityType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
                             "values": ["projects/proj/zones/us-central1-a/reservations/r1"]}},
   "provisioningModel": "RESERVATION", "scalingSpec": {"minNodeCount": 2, "maxNodeCount": 2}, "zone": "us-central1-a",
   "lustres": ["projects/proj/locations/us-central1-a/instances/lustre1"],
   "filestores": ["projects/proj/locations/us-central1-a/instances/data"]},
  {"id": "flex", "machineSpec": {"machineType": "a3-highgpu-8g", "acceleratorType": "NVIDIA_H100_80GB", "acceleratorCount": 8},
   "provisioningModel": "FLEX_START", "flexStartMaxDuration": "86400s",
   "scalingSpec": {"minNodeCount": 0, "maxNodeCount": 4}, "zone": "us-central1-a",
   "lustres": ["projects/proj/locations/us-central1-a/instances/lustre1"],
   "futureKnob": {"modeByZone": {"usCentral1A": "FAST"}, "weight": 2.50, "startupScript": "#!/bin/bash\necho \"hi\""}},
  {"id": "login", "machineSpec": {"machineType": "n2-standard-8"},
   "scalingSpec": {"minNodeCount": 1, "maxNodeCount": 1}, "zone": "us-central1-a"}],
 "orchestratorSpec": {"slurmSpec": {"homeDirectoryStorage": "projects/proj/locations/us-central1-a/instances/home",
   "partitions": [{"id": "gpu", "nodePoolIds": ["a3", "flex"]}], "defaultPartitionId": "gpu", "loginNodePoolId": "login"}}}
JSON
cp "$srv/cluster.json" "$TEST_DIR/served.json"

# GET: the cluster (UPDATING while $srv/updating holds a count above 0);
# PATCH: the body kept byte for byte in $srv/patch.N, the masked top-level
# fields replaced (named as sent), answered with a finished operation.
# Every request is one line of $srv/log.
python3 - "$srv" "$TEST_DIR/port" <<'PY' &
import http.server, json, os, sys, urllib.parse
d, pf = sys.argv[1], sys.argv[2]
def camel(s):
    h, *t = s.split('_'); return h + ''.join(w[:1].upper() + w[1:] for w in t)
class H(http.server.BaseHTTPRequestHandler):
    def log(self, what):
        with open(os.path.join(d, 'log'), 'a') as f: f.write(what + '\n')
    def answer(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        path = urllib.parse.urlparse(self.path).path
        if '/operations/' in path:
            self.log('GET op'); return self.answer({'name': path[9:], 'done': True})
        cl = json.load(open(os.path.join(d, 'cluster.json')))
        up = os.path.join(d, 'updating')
        n = int(open(up).read()) if os.path.exists(up) else 0
        if n > 0:
            open(up, 'w').write(str(n - 1)); cl['clusterStatus']['state'] = 'UPDATING'
        self.log('GET ' + cl['clusterStatus']['state'])
        # the bytes as stored: 2.50 stays 2.50
        body = open(os.path.join(d, 'cluster.json'), 'rb').read() if n <= 0 else json.dumps(cl).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers(); self.wfile.write(body)
    def do_PATCH(self):
        u = urllib.parse.urlparse(self.path)
        raw = self.rfile.read(int(self.headers['Content-Length']))
        k = len([f for f in os.listdir(d) if f.startswith('patch.')])
        open(os.path.join(d, 'patch.%d' % k), 'wb').write(raw)
        mask = urllib.parse.parse_qs(u.query).get('updateMask', [''])[0]
        self.log('PATCH ' + mask)
        cl = json.load(open(os.path.join(d, 'cluster.json')))
        sent = json.loads(raw)
        for m in mask.split(','):
            top = m.split('.')[0]
            for key in (top, camel(top)):
                if key in sent: cl[camel(top)] = sent[key]
        json.dump(cl, open(os.path.join(d, 'cluster.json'), 'w'))
        self.answer({'name': 'projects/proj/locations/us-central1/operations/1', 'done': True})
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

# --- describe: the status as published ---------------------------------
out=$(M describe 2>&1)
like "$out" "^state: +RUNNING$" "describe: clusterStatus.state"
like "$out" "^status detail: +all node pools ready$" "describe: clusterStatus.detail"
like "$out" "^  nodes: 1 REPAIRING, 1 RUNNING$" "describe: the a3 pool's nodes by state (nodesStatus)"
like "$(sed -n '/^node pool login:/{n;p;}' <<<"$out")" "^  nodes: 1 RUNNING$" "... and the login pool's"
like "$out" "^  provisioning: RESERVATION, reservation SPECIFIC_RESERVATION projects/proj/zones/us-central1-a/reservations/r1$" \
	"describe: a pool's provisioning model and reservation"
like "$out" "^  provisioning: FLEX_START, at most 86400s$" "describe: a flex-start pool's model and duration"
jq '.clusterStatus = {state: "ERROR", detail: "create failed", error: {code: 3, message: "no capacity"}}' \
	"$TEST_DIR/served.json" >"$srv/cluster.json"
out=$(M describe 2>&1)
like "$out" "^state: +ERROR$" "describe: an ERROR cluster"
like "$out" "^status error: +no capacity \(code 3\)$" "... its status error"
like "$out" "^status detail: +create failed$" "... and its detail"
cp "$TEST_DIR/served.json" "$srv/cluster.json"

# --- a scale waits while UPDATING, then sends the pools back whole -------
echo 2 >"$srv/updating"
: >"$srv/log"
out=$(M --yes nodepool scale flex --max 6 2>&1); rc=$?
is "$rc" 0 "nodepool scale succeeds once the cluster is no longer UPDATING" || diag "$out"
is "$(grep -c '^GET UPDATING$' "$srv/log")" 2 "... it read the cluster twice while UPDATING"
like "$(sed '/^PATCH/q' "$srv/log" | uniq | tr '\n' ' ')" "^GET UPDATING GET RUNNING PATCH " \
	"... and sent nothing before it was RUNNING again" || diag "$(cat "$srv/log")"
body=$srv/patch.0
ok "one PATCH was sent" test -s "$body" -a ! -e "$srv/patch.1"
like "$(grep '^PATCH' "$srv/log")" "^PATCH (node_pools|nodePools)$" "... a full replacement of the node pools"
field() { # field POOL JQ-PATH: the value in the PATCH and as served, compact
	is "$(jq -c --arg p "$1" "(.nodePools // .node_pools)[] | select(.id == \$p) | $2" "$body")" \
		"$(jq -c --arg p "$1" ".nodePools[] | select(.id == \$p) | $2" "$TEST_DIR/served.json" | sed 's/null/missing/')" \
		"pool $1: $2 sent back unchanged, under its own name"
}
field a3 "(.machineSpec // .machine_spec).reservationAffinity"
field a3 .provisioningModel
field a3 .lustres
field a3 .filestores
field flex .provisioningModel
field flex .flexStartMaxDuration
field flex .futureKnob
ok "the future field's bytes are the server's (camelCase map keys, 2.50)" \
	grep -qF '"futureKnob":{"modeByZone":{"usCentral1A":"FAST"},"weight":2.50,' "$body"
is "$(jq -c '[(.nodePools // .node_pools)[] | select(.id == "flex") | (.scalingSpec // .scaling_spec) | (.maxNodeCount // .max_node_count)]' "$body")" \
	"[6]" "... with the new count"

# another pool command, on the cluster as the server now keeps it: a pin
# sends the pools whole again and keeps them too
out=$(M --yes --allow-recreate nodepool image a3 --pin img-2026-11 </dev/null 2>&1); rc=$?
is "$rc" 0 "nodepool image --pin succeeds" || diag "$out"
is "$(jq -c '[(.nodePools // .node_pools)[] | [.id, (.machineSpec // .machine_spec).reservationAffinity.values[0], .provisioningModel, .flexStartMaxDuration, .lustres[0], .filestores[0], .futureKnob.modeByZone]]' "$srv/patch.1")" \
	"$(jq -c '[.nodePools[] | [.id, .machineSpec.reservationAffinity.values[0], .provisioningModel, .flexStartMaxDuration, .lustres[0], .filestores[0], .futureKnob.modeByZone]]' "$TEST_DIR/served.json")" \
	"... with every pool's reservation, provisioning, flex duration, mounts and future field unchanged"
