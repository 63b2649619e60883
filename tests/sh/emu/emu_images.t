#!/usr/bin/env bash
# Node images: default per machine type, advanced by the test endpoint
# or a flag; USER_AND_SERVICE moves unpinned pools (even for a label
# change), USER_ONLY never does, node_image pins; a move recreates the pool
# (clusterEvents VM_DELETION, progressMessage naming the pools).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

emu_up
emu_create_cluster c1 >/dev/null || { fail "create c1"; exit 1; }

patch() {
	CODE=$(curl -s -o "$TEST_DIR/resp" -w '%{http_code}' -X PATCH \
		--data-binary "$3" "$EMU_CLUSTERS/$1?$2")
	BODY=$(cat "$TEST_DIR/resp")
	[ "$CODE" = 200 ] && BODY=$(emu_wait_op "$(jq -r .name <<<"$BODY")")
}
advance() {
	curl -s -X POST --data-binary "{\"machineType\":\"$1\",\"image\":\"$2\"}" \
		"$EMU_URL/emulator/v1/images:advance" >/dev/null
}
images() { curl -s "$EMU_CLUSTERS/$1" | jq -c '[.nodePools[] | "\(.id)=\(.nodeImage)"]'; }
events() { curl -s "$EMU_CLUSTERS/$1" | jq -c '[.clusterEvents[]? | "\(.eventType):\(.nodePoolId)"]'; }
progress() { jq -r .metadata.progressMessage <<<"$BODY"; }

is "$(images c1)" '["cpu=","login="]' "never-updated cluster reports empty node_image"
is "$(curl -s "$EMU_URL/emulator/v1/images" | jq -r '."*"')" mdc-image-2026-10 "default image table"

advance n2-standard-8 mdc-image-2026-11
patch c1 "updateMask=labels&updateMode=USER_ONLY" '{"labels":{"a":"1"}}'
is "$CODE $(images c1)" '200 ["cpu=mdc-image-2026-10","login=mdc-image-2026-10"]' "USER_ONLY: pools stay on their running image"
is "$(events c1)" '[]' "USER_ONLY: no VM_DELETION"
unlike "$(progress)" "recreat" "USER_ONLY: progress message recreates nothing"

patch c1 "updateMask=labels&updateMode=USER_AND_SERVICE" '{"labels":{"a":"2"}}'
is "$CODE $(images c1)" '200 ["cpu=mdc-image-2026-11","login=mdc-image-2026-11"]' \
	"USER_AND_SERVICE: a label change moves unpinned pools to the new default"
is "$(events c1)" '["VM_DELETION:cpu","VM_DELETION:login"]' "one VM_DELETION event per recreated pool"
like "$(progress)" "recreating node pool 'cpu'.*drained and replaced" "progress names the compute pool"
like "$(progress)" "recreating login node pool 'login'.*SSH sessions end.*boot disk is discarded" \
	"progress says the login node's SSH sessions end and its boot disk is discarded"
is "$(jq -r .response.clusterEvents[0].eventType <<<"$BODY")" VM_DELETION "the operation's response carries the events"

# nothing new: no recreation
patch c1 "updateMask=labels&updateMode=USER_AND_SERVICE" '{"labels":{"a":"3"}}'
is "$(events c1 | jq length)" 2 "USER_AND_SERVICE without a newer image recreates nothing"

# pin cpu, let login follow
advance n2-standard-8 mdc-image-2026-12
pools=$(curl -s "$EMU_CLUSTERS/c1" | jq -c '[.nodePools[] | del(.nodeImage)] | (.[0].nodeImage = "mdc-image-2026-11")')
patch c1 "updateMask=node_pools&updateMode=USER_AND_SERVICE" "{\"nodePools\":$pools}"
is "$CODE $(images c1)" '200 ["cpu=mdc-image-2026-11","login=mdc-image-2026-12"]' "a set node_image pins the pool; omitted ones resolve"
is "$(events c1)" '["VM_DELETION:cpu","VM_DELETION:login","VM_DELETION:login"]' "only the moved pool is recreated"

advance '*' mdc-image-2027-01
advance n2-standard-8 mdc-image-2027-01
patch c1 "updateMask=labels" '{"labels":{"a":"4"}}'
is "$(images c1)" '["cpu=mdc-image-2026-11","login=mdc-image-2027-01"]' "UNSPECIFIED = USER_AND_SERVICE; the pin holds across updates"

# USER_ONLY with node_image set does move that pool (and pins it)
pools=$(curl -s "$EMU_CLUSTERS/c1" | jq -c '[.nodePools[] | del(.nodeImage)] | (.[0].nodeImage = "mdc-image-2027-01")')
patch c1 "updateMask=node_pools&updateMode=USER_ONLY" "{\"node_pools\":$pools}"
is "$(images c1)" '["cpu=mdc-image-2027-01","login=mdc-image-2027-01"]' "USER_ONLY moves only a pool whose node_image is set"
like "$(progress)" "recreating node pool 'cpu'" "... and says so"

# bad advance requests
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST --data-binary '{"image":"x"}' "$EMU_URL/emulator/v1/images:advance")
is "$code" 400 "images:advance needs machineType"

# the --image flag sets a default at start
emu_start --image n2-standard-8=img-flag-1 || fail "second emulator starts"
emu_create_cluster c2 >/dev/null
patch c2 "updateMask=labels&updateMode=USER_ONLY" '{"labels":{"x":"y"}}'
is "$(images c2)" '["cpu=img-flag-1","login=img-flag-1"]' "--image TYPE=IMAGE sets the default of a machine type"

done_testing
