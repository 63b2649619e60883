#!/usr/bin/env bash
# The examples of doc/pr-examples.md run as written: every ```sh block, in
# order, in one shell, against the emulator; each block must succeed, and
# a few results are checked against what the text says.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq not installed"
DOC=$top_srcdir/doc/pr-examples.md
export MDC_CONF=/dev/null
unset MDC_ENDPOINT MDC_PROJECT MDC_REGION MDC_CLUSTER MDC_ACCESS_TOKEN MDC_TOKEN_FILE
# operations finish at the next request, so --async steps are done in time
EMU_LRO_SECONDS=0 emu_up
# the run's first task lasts the whole test, so it is still there to cancel
curl -sS -X POST -H 'Content-Type: application/json' --data '{"taskMs": 600000, "cancelMs": 100}' \
	"$EMU_URL/emulator/v1/pipelineJobs:timing" >/dev/null

# one script: each block, then a marker line with its exit status
nblocks=$(grep -c '^```sh$' "$DOC")
awk '
	/^```sh$/ { inb = 1; n++; print "( set -e"; next }
	/^```/ && inb { inb = 0
		# the exports of a block carry over to the next ones
		print "export -p >\"$OUT/env\" ) >\"$OUT/block" n "\" 2>&1; echo \"block " n " $?\"; . \"$OUT/env\" 2>/dev/null"
		next }
	inb { print }
' "$DOC" >"$TEST_DIR/examples.sh"

plan $((nblocks + 9))

mkdir -p "$TEST_DIR/work"
cp "$top_srcdir/tests/pr/pipeline.yaml" "$TEST_DIR/work/"
results=$(cd "$TEST_DIR/work" && OUT=$TEST_DIR MDC_ENDPOINT=$EMU_URL PATH="$top_builddir:$PATH" \
	bash "$TEST_DIR/examples.sh" 2>&1)
for ((i = 1; i <= nblocks; i++)); do
	st=$(printf '%s\n' "$results" | sed -n "s/^block $i //p")
	if [ "$st" = 0 ]; then
		pass "example block $i runs"
	else
		fail "example block $i runs (status '${st:-not run}')" \
			"$(cat "$TEST_DIR/block$i" 2>/dev/null)"
	fi
done

P=projects/my-project/locations/us-central1
first=$(cat "$TEST_DIR/block2")
like "$first" "Created persistent resource \[$P/persistentResources/my-pr\] \(state RUNNING\)" \
	"the first create prints what the text shows"
is "$(jq -S -c 'select(.query.persistent_resource_id == "my-pr") | .body' "$EMU_LOG")" \
	'{"display_name":"Training pool","resource_pools":[{"machine_spec":{"machine_type":"n1-standard-4"},"replica_count":4}],"resource_runtime_spec":{"service_account_spec":{"enable_custom_service_account":true}}}' \
	"it sends exactly the body the text shows"
is "$(sed -n '/^{/,$p' "$TEST_DIR/block4" | jq -c '[.display_name, .resource_pools[0].replica_count, .labels.team]')" \
	'["From a file",3,"ml"]' "the --config example: the flag pool's replica-count wins over the file"
like "$(cat "$TEST_DIR/block5")" "my-pr +RUNNING +Training pool +4 x n1-standard-4" "list shows the resource as the text does"
like "$(cat "$TEST_DIR/block7")" "runs/nightly-1\?project=my-project" "the pipeline run prints the console link"
is "$(jq -c 'select(.method == "PATCH") | [.path, .query.updateMask, .body.labels.stage, (.body.resource_pools | map(.id))]' "$EMU_LOG")" \
	"[\"/v1/$P/persistentResources/gpu-pr\",\"labels,resourcePools\",\"prod\",[\"cpu\",\"gpu\"]]" \
	"the update example sends one PATCH with the mask the text names"
like "$(cat "$TEST_DIR/block6")" "^Updated persistent resource \[$P/persistentResources/gpu-pr\] \(labels,resourcePools\)\.$" \
	"and prints what the text shows"
like "$(cat "$TEST_DIR/block9")" "^nightly-1 did not succeed \(exit $EXIT_OPFAILED\)$" \
	"the wait example exits non-zero on a cancelled run, as the text shows"
is "$(curl -sS "$EMU_URL/v1/$P/persistentResources/gpu-pr" | jq -r .error.status)" NOT_FOUND \
	"the maintenance example deleted gpu-pr"
