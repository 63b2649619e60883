#!/usr/bin/env bash
# mdcctl says only what it can know about node image moves: a read
# cannot tell a pinned pool from one that reports its running image, so
# before an update with --allow-recreate it lists the pools that MAY be
# recreated and why; after the operation it reports what happened, from
# the operation's VM_DELETION events.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 7
emu_mdcctl_env c1

# a never-updated cluster reports no image: the pools may move, nothing does
out=$(M --allow-recreate --yes --update-mode USER_AND_SERVICE config set PriorityWeightAge=3 2>"$TEST_DIR/err")
is "$?" 0 "a USER_AND_SERVICE update with --allow-recreate succeeds"
is "$(grep -c '^node pools that may be recreated (see the warnings): \(cpu\|login\)$' <<<"$out")" 2 \
	"the plan says which pools MAY be recreated"
like "$(cat "$TEST_DIR/err")" "node pool 'cpu' may move to the current default image: it reports no image \(cluster never updated\)" \
	"... and why"
like "$out" "node pools recreated: none \(the operation reported no VM_DELETION event\)" \
	"afterwards: nothing moved, and it says so (the operation's events)"
unlike "$out" "node pools recreated: cpu" "no false 'recreated' claim"

# a new default image: now the pools really move
curl -sS -X POST --data-binary '{"machineType":"*","image":"img-next"}' "$EMU_URL/emulator/v1/images:advance" >/dev/null
out=$(M --allow-recreate --yes --update-mode USER_AND_SERVICE config set PriorityWeightAge=4 2>"$TEST_DIR/err")
like "$out" "node pools recreated: cpu, login \(VM_DELETION events of the operation\)" \
	"afterwards: the pools that moved, from the operation's events"
is "$(curl -sS "$EMU_CLUSTERS/c1" | jq -r '[.nodePools[].nodeImage] | unique | join(",")')" img-next \
	"... and they did move"
