#!/usr/bin/env bash
# The cluster's status as the service publishes it (magic-modules
# ModelDevelopmentCluster.yaml): clusterStatus{state, detail, nodesStatus[]}
# from the emulator, one node entry per node with its pool, type and create
# time; and mdcctl reading that shape from a server that has no top-level
# "state" at all (what Google answers), for describe and for the wait
# before an update while the cluster is UPDATING.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 18
emu_mdcctl_env c1
NAME=$MDC_CLUSTER

cl=$(emu_curl "$EMU_CLUSTERS/c1")
is "$(jq -r .clusterStatus.state <<<"$cl")" RUNNING "the emulator reports clusterStatus.state"
is "$(jq -r '[.clusterStatus.nodesStatus[] | "\(.nodePoolId):\(.nodePoolType):\(.nodeState)"] | sort | join(" ")' <<<"$cl")" \
	"cpu:NODE_POOL_TYPE_COMPUTE:RUNNING login:NODE_POOL_TYPE_LOGIN:RUNNING" \
	"nodesStatus: one entry per node (min count of a compute pool, one login node)"

# every published node field (magic-modules nodesStatus item)
is "$(jq -r '[.clusterStatus.nodesStatus[] | keys_unsorted | sort | join(",")] | unique | join(" ")' <<<"$cl")" \
	"createTime,detail,instanceId,instanceName,lastUpdateTime,nodePoolId,nodePoolType,nodeState,physicalHost" \
	"nodesStatus entries carry the published fields"
is "$(jq -r '[.clusterStatus.nodesStatus[].physicalHost | keys | join(",")] | unique | join(" ")' <<<"$cl")" \
	"blockId,clusterName,hostId,subblockId" "... physicalHost with block, cluster, host, sub-block"
is "$(jq -r '[.clusterStatus.nodesStatus[].instanceId | test("^[0-9]+$")] | all' <<<"$cl")" true \
	"... instanceId a decimal Compute Engine id"
is "$(jq -r '.clusterStatus.nodesStatus[] | select(.instanceName == "c1-cpu-0") | .detail' <<<"$cl")" \
	"the node is running" "... detail of a RUNNING node"
id0=$(jq -r '.clusterStatus.nodesStatus[] | select(.instanceName == "c1-cpu-0") | .instanceId' <<<"$cl")
n0=$(jq -c '.clusterStatus.nodesStatus[] | select(.instanceName == "c1-cpu-0")' <<<"$cl")
out=$(M describe 2>&1)
like "$out" "^  node c1-cpu-0: RUNNING \(the node is running\), instance $id0, host emu-us-central1-a/block-[0-9]/subblock-[0-9]/host-[0-9a-f]{8}, created [0-9T:.Z-]+, updated [0-9T:.Z-]+$" \
	"describe prints each node's published fields"

# a scale-up adds nodes; the nodes already there keep their create time
born=$(jq -r '.clusterStatus.nodesStatus[] | select(.nodePoolId == "cpu") | .createTime' <<<"$cl")
M --yes nodepool scale cpu --min 2 --max 2 >/dev/null 2>&1
cl=$(emu_curl "$EMU_CLUSTERS/c1")
is "$(jq -r '[.clusterStatus.nodesStatus[] | select(.nodePoolId == "cpu")] | length' <<<"$cl")" 2 \
	"a scale-up shows the new node"
is "$(jq -r '.clusterStatus.nodesStatus[] | select(.instanceName == "c1-cpu-0") | .createTime' <<<"$cl")" "$born" \
	"... and the old node keeps its create time"
is "$(jq -c '.clusterStatus.nodesStatus[] | select(.instanceName == "c1-cpu-0")' <<<"$cl")" "$n0" \
	"... and its instance id, physical host and last update time"

# a server with the published shape only: no top-level state
srv=$TEST_DIR/srv
mkdir -p "$srv/v1beta1/${NAME%/*}"
real() { # real STATE [ERROR-JSON]: the cluster as the service answers it
	jq --arg st "$1" --argjson err "${2:-null}" 'del(.state) | .clusterStatus = ({state: $st,
		detail: "d", nodesStatus: []} + (if $err then {error: $err} else {} end))' <<<"$cl" \
		>"$srv/v1beta1/$NAME"
}
real RUNNING
python3 - "$srv" "$TEST_DIR/port" <<'PY' &
import http.server, sys, os
d, pf = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        p = os.path.join(d, self.path.split('?')[0].lstrip('/'))
        try:
            body = open(p, 'rb').read()
        except OSError:
            self.send_response(404); self.end_headers(); return
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers(); self.wfile.write(body)
    def do_PATCH(self):
        open(os.path.join(d, 'patched'), 'w').write(self.path)
        self.send_response(500); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
open(pf + '.tmp', 'w').write(str(s.server_port)); os.rename(pf + '.tmp', pf)
s.serve_forever()
PY
spid=$!
at_exit "kill $spid 2>/dev/null"
for _ in $(seq 50); do [ -s "$TEST_DIR/port" ] && break; sleep 0.1; done
export MDC_ENDPOINT=http://127.0.0.1:$(cat "$TEST_DIR/port")

out=$(M describe 2>&1)
like "$out" "^state: +RUNNING" "describe reads clusterStatus.state (no top-level state)"
unlike "$out" "^state: +\?" "... never '?'"

real ERROR '{"code": 3, "message": "quota exceeded for a2-highgpu-1g"}'
out=$(M describe 2>&1)
like "$out" "^state: +ERROR" "an ERROR cluster is shown as such"
like "$out" "status error: +quota exceeded for a2-highgpu-1g \(code 3\)" "... with the status error"

real UPDATING
out=$(M --no-wait labels set k=v 2>&1); rc=$?
isnt "$rc" 0 "an update while clusterStatus says UPDATING does not go ahead with --no-wait"
like "$out" "is UPDATING; try again later" "... and says the cluster is UPDATING"
ok "... nothing was sent" test ! -e "$srv/patched"

real STOPPING
out=$(M labels set k=v 2>&1)
like "$out" "is being deleted \(STOPPING\); nothing was sent" "a STOPPING cluster (clusterStatus) is refused"
