#!/usr/bin/env bash
# Errors and retries through the emulator's fault injection: GETs are
# retried on 503/429, writes never are; a lost PATCH answer is followed by
# a re-read that says what happened; a failed operation and auth errors
# give their documented exit codes.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

export MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR MDC_RETRY_BASE_MS=10
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
M() { "$top_builddir/mdcctl" "$@"; }
count() { jq -r "select(.method == \"$1\") | .method" "$EMU_LOG" | wc -l; }

# one cluster, created once; every scenario starts an emulator with its
# own faults on a copy of that state
emu_up
emu_create_cluster c1 >/dev/null || skip_all "cannot create the test cluster"
BASE=$EMU_STATE
emu_stop
N=0
start() {
	emu_stop
	N=$((N + 1))
	mkdir -p "$TEST_DIR/run$N"
	cp "$BASE" "$TEST_DIR/run$N/state.json"
	EMU_DIR_NEXT=$TEST_DIR/run$N emu_start "$@" || return 1
	export MDC_ENDPOINT=$EMU_URL
}

# --- GET retries ------------------------------------------------------------
start --fault GET:503:1
err=$(M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_API" "a GET that keeps failing with 503 exits $EXIT_API"
like "$err" "^mdcctl: error: UNAVAILABLE: " "one line 'error: STATUS: message'"
is "$(count GET)" 6 "the GET was tried 6 times (5 retries)"
unlike "$err" "retrying" "without a terminal the retries are said only with -v"
# on a terminal each retry is said: the backoff reaches half a minute
if command -v script >/dev/null 2>&1; then
	script -qec "$top_builddir/mdcctl describe" /dev/null >"$TEST_DIR/tty" 2>&1
	is "$(tr -d '\r' <"$TEST_DIR/tty" | grep -c '^mdcctl: warning: .*UNAVAILABLE.*; retrying in [0-9.]* s ([1-5] of 5)$')" 5 \
		"on a terminal each of the 5 retries is said"
else
	skip "retries said on a terminal" "no script(1)"
fi

start --fault GET:503:0.3 --seed 7 || skip_all "cannot start the emulator"
ok "describe succeeds through random 503s" sh -c 'for i in 1 2 3 4 5 6; do "$0" describe || exit 1; done' "$top_builddir/mdcctl"
n=$(count GET)
[ "$n" -gt 6 ] && pass "GETs answered 503 were retried ($n tries for 6 reads)" || fail "no GET was retried ($n)"

start --fault GET:429:1
err=$(M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_API" "a GET that keeps getting 429 exits $EXIT_API"
like "$err" "RESOURCE_EXHAUSTED" "and shows the status"
is "$(count GET)" 6 "the 429 was retried (honouring the server's 1 s delay)"

# --- writes are never retried -------------------------------------------------
start --fault PATCH:503:1
err=$(M labels set env=prod 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_API" "a PATCH answered 503 exits $EXIT_API"
like "$err" "UNAVAILABLE" "and shows the status"
is "$(count PATCH)" 1 "the PATCH was sent once, not retried"

start --fault PATCH:drop:1
err=$(M labels set env=prod 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_HTTP" "a PATCH whose connection drops exits $EXIT_HTTP"
like "$err" "re-read the cluster: the change is not present and nothing was resent" \
	"the client re-read the cluster and says what happened"
is "$(count PATCH)" 1 "the PATCH was not resent"
is "$(jq -r .method "$EMU_LOG" | tail -n 1)" GET "the last request is the re-read"

start --fault PATCH:latency:3000
err=$(MDC_HTTP_TIMEOUT=1 M labels set env=prod 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_TIMEOUT" "a PATCH that times out exits $EXIT_TIMEOUT"
like "$err" "re-read the cluster: .*nothing was resent" "and says what the re-read found"
is "$(count PATCH)" 1 "the PATCH was not resent after the timeout"

# --- a failed operation ----------------------------------------------------------
start --fault operation:fail
err=$(M labels set env=prod 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_OPFAILED" "an operation that ends in error exits $EXIT_OPFAILED"
like "$err" "operation '.*' failed" "and says which operation failed"

# --- API errors: one line with the field violation -----------------------------------
start
printf '{"labels":{"a":"b"},"orchestrator_spec":{"slurm_spec":{"config":{"PriorityType":"priority/basic"},"scheduling":{"priority_type":"priority/basic"}}}}' >"$TEST_DIR/both.json"
err=$(M update "$TEST_DIR/both.json" --update-mask orchestrator_spec.slurm_spec.config,orchestrator_spec.slurm_spec.scheduling 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "config together with scheduling is refused before sending"
like "$err" "migrate-config|scheduling" "and points at the legacy field"
is "$(count PATCH)" 0 "no PATCH"

# --- auth ------------------------------------------------------------------------------
start --token s3cr3t-token
: >"$EMU_LOG"
err=$(M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_AUTH" "no token against a server that wants one exits $EXIT_AUTH"
like "$err" "UNAUTHENTICATED" "and shows the status"
out=$(MDC_ACCESS_TOKEN=s3cr3t-token M -v describe 2>&1); rc=$?
is "$rc" "$EXIT_OK" "MDC_ACCESS_TOKEN is sent"
unlike "$out" "s3cr3t" "the token is not printed, even with -v"
printf 's3cr3t-token\n' >"$TEST_DIR/token"
chmod 600 "$TEST_DIR/token"
ok "the token file is read" env MDC_TOKEN_FILE="$TEST_DIR/token" "$top_builddir/mdcctl" describe
printf 'TokenFile = %s\n' "$TEST_DIR/token" >"$TEST_DIR/mdc.conf"
ok "TokenFile in the config file" env MDC_CONF="$TEST_DIR/mdc.conf" "$top_builddir/mdcctl" describe
printf 'wrong\n' >"$TEST_DIR/token"
err=$(MDC_TOKEN_FILE="$TEST_DIR/token" M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_AUTH" "a wrong token exits $EXIT_AUTH"
err=$(MDC_ACCESS_TOKEN='bad token' M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_AUTH" "a token with a space is refused (header injection)"
unlike "$err" "bad token" "without echoing it"

# the metadata server (GCE): a local stand-in that logs its requests
cat >"$TEST_DIR/md.py" <<'PY'
import http.server, json, sys
log = open(sys.argv[1], "a")
tokens = sys.argv[3].split(",")   # one per request, the last one repeats
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        log.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Metadata-Flavor")))
        log.flush()
        tok = tokens.pop(0) if len(tokens) > 1 else tokens[0]
        body = json.dumps({"access_token": tok, "expires_in": 3599,
                           "token_type": "Bearer"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[2], "w").write("%d\n" % s.server_address[1])
s.serve_forever()
PY
python3 "$TEST_DIR/md.py" "$TEST_DIR/md.log" "$TEST_DIR/md.port" s3cr3t-token &
MD_PID=$!
at_exit "kill $MD_PID"
wait_until 10 test -s "$TEST_DIR/md.port"
export MDC_METADATA_URL="http://127.0.0.1:$(cat "$TEST_DIR/md.port")/computeMetadata/v1/instance/service-accounts/default/token"
out=$(M -v labels set env=prod 2>&1); rc=$?
is "$rc" "$EXIT_OK" "a write authenticated by the metadata server's token"
is "$(cat "$TEST_DIR/md.log")" "GET /computeMetadata/v1/instance/service-accounts/default/token Google" \
	"the token was fetched once, with Metadata-Flavor: Google, for all requests"
unlike "$out" "s3cr3t" "the token is not printed"
like "$(jq -r .method "$EMU_LOG" | sort -u | tr '\n' ' ')" "GET PATCH" "several requests used the cached token"

# a token the server rejects (revoked, expired early) is fetched again once
python3 "$TEST_DIR/md.py" "$TEST_DIR/md2.log" "$TEST_DIR/md2.port" stale-token,s3cr3t-token &
MD2_PID=$!
at_exit "kill $MD2_PID"
wait_until 10 test -s "$TEST_DIR/md2.port"
export MDC_METADATA_URL="http://127.0.0.1:$(cat "$TEST_DIR/md2.port")/token"
ok "a 401 with a metadata token fetches a fresh one" M describe
is "$(wc -l <"$TEST_DIR/md2.log" | tr -d ' ')" 2 "the metadata server was asked twice"
done_testing
