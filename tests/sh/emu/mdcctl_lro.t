#!/usr/bin/env bash
# Long-running operations: --async prints the operation and how to wait,
# `operations wait|describe`, --timeout, Ctrl-C stops the wait and says how
# to resume, progress shows on a terminal only; create and delete.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 26
emu_mdcctl_env c1
# hold true|false: operations stay running until released (no clock races)
hold() {
	curl -sS -X POST -H 'Content-Type: application/json' -d "{\"hold\": $1}" \
		"$EMU_URL/emulator/v1/operations:hold" >/dev/null
}
: >"$EMU_LOG"
hold true

# --- --async ----------------------------------------------------------------------
out=$(M --async labels set env=a); rc=$?
is "$rc" "$EXIT_OK" "--async exits 0 at once"
op=$(printf '%s\n' "$out" | sed -n 's/^operation: //p')
like "$op" "^projects/[0-9]+/locations/us-central1/operations/[0-9]+$" "--async prints the operation name (named with the project number, as the service does)"
like "$out" "wait for it with: mdcctl operations wait $op" "and how to wait for it"
is "$(jq -r 'select(.path | startswith("/v1/")) | .method' "$EMU_LOG" | wc -l | tr -d ' ')" 0 "--async polls nothing"
out=$(M operations describe "$op"); rc=$?
like "$out" "done: +no" "operations describe shows a running operation"
out=$(M --format json operations describe "$op" | jq -r .done)
is "$out" false "operations describe --format json"
# another writer waits while the cluster is UPDATING, or fails with --no-wait
err=$(M --no-wait labels set env=b 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_CONFLICT" "--no-wait on an UPDATING cluster exits $EXIT_CONFLICT"
like "$err" "is UPDATING; try again later" "and says why"
hold false
out=$(M operations wait "$op" 2>"$TEST_DIR/err"); rc=$?
is "$rc" "$EXIT_OK" "operations wait exits 0 when the operation is done"
like "$out" "done: +yes" "and shows it done"
is "$(cat "$TEST_DIR/err")" "" "no progress line when stderr is not a terminal"
is "$(M labels list | sort)" "$(printf 'env=a\nteam=ml')" "the async change landed"

# --- --timeout --------------------------------------------------------------------
hold true
err=$(M --timeout 1 labels set env=c 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_TIMEOUT" "an operation longer than --timeout exits $EXIT_TIMEOUT"
like "$err" "still running after 1 s; it continues: wait with 'mdcctl operations wait projects/" \
	"and says how to go on waiting"
op=$(printf '%s' "$err" | sed -n "s/.*operations wait \([^']*\)'.*/\1/p")
hold false
ok "operations wait resumes it" M operations wait "$op"

# --- Ctrl-C -----------------------------------------------------------------------
hold true
: >"$EMU_LOG"
"$top_builddir/mdcctl" labels set env=d >"$TEST_DIR/out" 2>"$TEST_DIR/err" &
pid=$!
at_exit "kill $pid"
# its PATCH went out, so its handler is in place (background jobs start
# with SIGINT ignored until mdcctl installs one)
wait_until 30 grep -q PATCH "$EMU_LOG"
kill -INT "$pid"
wait "$pid"; rc=$?
is "$rc" "$EXIT_INTERRUPTED" "Ctrl-C while waiting exits $EXIT_INTERRUPTED"
like "$(cat "$TEST_DIR/err")" "stopped waiting; operation '.*' continues: resume with 'mdcctl operations wait " \
	"and says how to resume"
op=$(sed -n "s/.*resume with 'mdcctl operations wait \([^']*\)'.*/\1/p" "$TEST_DIR/err")
hold false
ok "the resumed wait finishes" M operations wait "$op"
is "$(M labels list | grep env)" "env=d" "the change landed after all"

# --- progress on a terminal ----------------------------------------------------------
if command -v script >/dev/null 2>&1; then
	hold true
	script -qec "$top_builddir/mdcctl --timeout 2 labels set env=e" /dev/null >"$TEST_DIR/tty" 2>&1
	hold false
	like "$(tr '\r' '\n' <"$TEST_DIR/tty")" "\[ +[0-9]+s\] updating model development cluster" \
		"a progress line with elapsed time and progressMessage on a terminal"
else
	skip "a progress line on a terminal" "no script(1)"
fi

# --- create and delete ---------------------------------------------------------------
emu_standard_cluster >"$TEST_DIR/c2.json"
: >"$EMU_LOG"
C2=projects/proj/locations/us-central1/modelDevelopmentClusters/c2
out=$(M --cluster "$C2" create "$TEST_DIR/c2.json"); rc=$?
is "$rc" "$EXIT_OK" "create exits 0 once the operation is done"
is "$(jq -c 'select(.method == "POST") | [.path, .query]' "$EMU_LOG")" \
	'["/v1beta1/projects/proj/locations/us-central1/modelDevelopmentClusters",{"model_development_cluster_id":"c2"}]' \
	"create POSTs to the collection with model_development_cluster_id"
is "$(jq -c 'select(.method == "POST") | .body.node_pools | length' "$EMU_LOG")" 2 "create sends the file's body"
: >"$EMU_LOG"
out=$(M --cluster "$C2" --format json --async delete --yes); rc=$?
is "$rc" "$EXIT_OK" "delete --yes --async exits 0"
is "$(jq -c 'select(.method != "GET") | [.method, .path]' "$EMU_LOG")" "[\"DELETE\",\"/v1beta1/$C2\"]" "delete sends one DELETE"
ok "operations wait for the delete" M operations wait "$(printf '%s' "$out" | jq -r .name)"
