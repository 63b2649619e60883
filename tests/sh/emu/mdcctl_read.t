#!/usr/bin/env bash
# mdcctl read commands against the emulator: text and --format json output,
# exact GET requests in the request log, not-found exit codes, and no write
# request from a read.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 41
emu_up
emu_create_cluster c1 >/dev/null || skip_all "cannot create the test cluster"
: >"$EMU_LOG"
export MDC_ENDPOINT=$EMU_URL MDC_CONF=/dev/null
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL MDC_CLUSTER
NAME=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
M() { "$top_builddir/mdcctl" --cluster "$NAME" "$@"; }
CPATH=/v1beta1/$NAME

# every request since the last call, as "METHOD PATH QUERY"
reqs() { jq -r '[.method, .path, (.query | to_entries | map("\(.key)=\(.value)") | join("&"))] | join(" ")' "$EMU_LOG" | sed 's/ *$//'; : >"$EMU_LOG"; }

out=$(M describe); rc=$?
is "$rc" "$EXIT_OK" "describe exits 0"
like "$out" "^name: +$NAME" "describe text names the cluster"
like "$out" "default partition: cpu" "describe text shows the default partition"
like "$out" "node pool cpu: n2-standard-8, 1\.\.2 nodes" "describe text shows the pools"
is "$(reqs)" "GET $CPATH" "describe sends exactly one GET"

out=$(M --format json describe)
is "$(printf '%s' "$out" | jq -r '.orchestratorSpec.slurmSpec.defaultPartitionId')" cpu \
	"describe --format json is the resource as the API answers (lowerCamelCase)"
is "$(printf '%s' "$out" | jq -r '.labels.team')" ml "describe json keeps labels"
reqs >/dev/null

# global options after the command work too
out=$(M describe --format json | jq -r .name)
is "$out" "$NAME" "--format after the command"

# the short form of the cluster
out=$("$top_builddir/mdcctl" --project proj --region us-central1 --cluster c1 --format json describe | jq -r .name)
is "$out" "$NAME" "--project/--region/--cluster ID build the name"
reqs >/dev/null

out=$("$top_builddir/mdcctl" --project proj --region us-central1 list)
is "$out" "$(printf '%s\tRUNNING' "$NAME")" "list prints name and state"
is "$(reqs)" "GET /v1beta1/projects/proj/locations/us-central1/modelDevelopmentClusters pageSize=100" \
	"list GETs the collection with pageSize"
out=$("$top_builddir/mdcctl" --project proj --region us-central1 list --format json | jq -r 'length, .[0].name')
is "$out" "$(printf '1\n%s' "$NAME")" "list --format json is an array of clusters"
reqs >/dev/null

is "$(M partition list)" "PartitionName=cpu NodePools=cpu Default=YES" "partition list text"
is "$(M partition list --format json | jq -c .)" '[{"id":"cpu","node_pool_ids":["cpu"]}]' "partition list json"
is "$(M partition show cpu --format json | jq -r .id)" cpu "partition show json"
M partition show nope >/dev/null 2>"$TEST_DIR/err"; rc=$?
is "$rc" "$EXIT_NOTFOUND" "partition show of a missing partition exits $EXIT_NOTFOUND"
is "$(cat "$TEST_DIR/err")" "mdcctl: error: no partition 'nope' in the cluster" "and says so in one line"
is "$(reqs)" "$(printf 'GET %s\nGET %s\nGET %s\nGET %s' "$CPATH" "$CPATH" "$CPATH" "$CPATH")" \
	"partition reads are single GETs"

out=$(M nodepool list)
is "$out" "$(printf 'cpu\tn2-standard-8\tmin=1\tmax=2\timage=-\nlogin\tn2-standard-8\tmin=1\tmax=1\timage=-')" "nodepool list text"
is "$(M nodepool show cpu --format json | jq -c .scaling_spec)" '{"min_node_count":1,"max_node_count":2}' \
	"nodepool show json"
M nodepool show gpu >/dev/null 2>&1
is "$?" "$EXIT_NOTFOUND" "nodepool show of a missing pool exits $EXIT_NOTFOUND"

is "$(M config show --format json | jq -c .)" "{}" "config show json of an empty config"
is "$(M config show)" "" "config show text of an empty config prints nothing"
M config get PriorityType >/dev/null 2>&1
is "$?" "$EXIT_NOTFOUND" "config get of an unset key exits $EXIT_NOTFOUND"
M config get NoSuchKey >/dev/null 2>"$TEST_DIR/err"
is "$?" "$EXIT_INVAL" "config get of an unknown key exits $EXIT_INVAL"
like "$(cat "$TEST_DIR/err")" "unknown key 'NoSuchKey'" "and names it"

is "$(M labels list)" "team=ml" "labels list text"
is "$(M labels list --format json | jq -c .)" '{"team":"ml"}' "labels list json"
is "$(M labels -- list)" "team=ml" "'--' before the subcommand ends the options"
is "$(M config --format json -- show | jq -c .)" "{}" "options, then '--', then the subcommand"
is "$(M prolog list --format json | jq -c .)" "[]" "prolog list json of no scripts"
is "$(M nodeset show cpu --format json | jq -c .)" "{}" "nodeset show of a pool without settings"
M nodeset show nope >/dev/null 2>&1
is "$?" "$EXIT_NOTFOUND" "nodeset show of a missing pool exits $EXIT_NOTFOUND"

# nothing but GETs went out
is "$(jq -r 'select(.method != "GET") | .method' "$EMU_LOG")" "" "reads never write"

# operations describe of an operation that does not exist
M operations describe projects/proj/locations/us-central1/operations/999999 >/dev/null 2>&1
is "$?" "$EXIT_NOTFOUND" "operations describe of an unknown operation exits $EXIT_NOTFOUND"
# an operation by its ID alone, as gcloud takes it: the cluster's project and region
: >"$EMU_LOG"
M operations describe 999999 >/dev/null 2>&1
is "$?" "$EXIT_NOTFOUND" "operations describe ID asks for the operation"
like "$(reqs)" "^GET /v1(beta1)?/projects/proj/locations/us-central1/operations/999999\$" \
	"under the cluster's project and region"
out=$(M operations describe a/999999 2>&1); rc=$?
is "$rc:$out" "$EXIT_USAGE:mdcctl: error: operations: 'a/999999' is not an operation: give its name (projects/P/locations/R/operations/ID, as --async prints it) or its ID" \
	"a name that is neither: usage error, nothing sent"
out=$("$top_builddir/mdcctl" operations wait 999999 2>&1); rc=$?
like "$rc:$out" "^$EXIT_USAGE:mdcctl: error: operations: the ID '999999' alone needs a cluster" \
	"an ID without a cluster: usage error"
is "$(reqs)" "" "neither sent anything"

# a missing cluster
"$top_builddir/mdcctl" --cluster projects/proj/locations/us-central1/modelDevelopmentClusters/zz describe >/dev/null 2>"$TEST_DIR/err"
is "$?" "$EXIT_NOTFOUND" "describe of a missing cluster exits $EXIT_NOTFOUND"
