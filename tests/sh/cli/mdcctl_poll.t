#!/usr/bin/env bash
# Operation polls start fast and back off, and a server's
# Retry-After on a poll is honoured.  A stand-in API answers the poll of
# one operation "not done, Retry-After: 2" twice, then "done", and logs
# when each poll came.  (The gaps are lower bounds the client guarantees
# by sleeping; nothing here depends on the machine being fast.)
. "$top_srcdir/tests/lib/tap.sh"

plan 6
export MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=projects/p/locations/r/modelDevelopmentClusters/c
OP=projects/p/locations/r/operations/op1

cat >"$TEST_DIR/api.py" <<'PY'
import http.server, json, os, sys, time
portfile, log, retry_after = sys.argv[1], sys.argv[2], sys.argv[3]
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        global n
        n += 1
        with open(log, "a") as f:
            f.write("%.3f %s\n" % (time.monotonic(), self.path))
        done = n > 2
        body = json.dumps({"name": self.path[4:], "done": done, **({"response": {}} if done else {})}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if not done and retry_after != "-":
            self.send_header("Retry-After", retry_after)
        self.end_headers()
        self.wfile.write(body)
s = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(portfile + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(portfile + ".tmp", portfile)
s.serve_forever()
PY
# api RETRY-AFTER NAME: a fresh stand-in; sets API and API_LOG
api() {
	API_LOG=$TEST_DIR/$2.log
	: >"$API_LOG"
	python3 "$TEST_DIR/api.py" "$TEST_DIR/$2.port" "$API_LOG" "$1" 2>"$TEST_DIR/$2.err" &
	at_exit "kill $! 2>/dev/null"
	wait_until 30 test -s "$TEST_DIR/$2.port" || return 1
	API=http://127.0.0.1:$(cat "$TEST_DIR/$2.port")
}
# gaps LOG: the seconds between consecutive polls, one a line
gaps() { awk 'NR > 1 { printf "%.3f\n", $1 - prev } { prev = $1 }' "$1"; }

api 2 ra || skip_all "the stand-in API did not start"
ok "operations wait on an operation answered with Retry-After: 2" \
	"$top_builddir/mdcctl" --endpoint "$API" operations wait "$OP"
is "$(wc -l <"$API_LOG" | tr -d ' ')" 3 "three polls: two 'not done', one 'done'"
is "$(gaps "$API_LOG" | awk '$1 < 1.95' | wc -l | tr -d ' ')" 0 \
	"each poll waited the server's Retry-After (>= 2 s), not the 0.1 s backoff"

# without Retry-After the same three polls take the backoff: 0.1 s, then
# 0.15 s (lower bounds again; the first poll is not held back by 1 s)
api - nora || skip_all "the stand-in API did not start"
ok "operations wait without Retry-After" "$top_builddir/mdcctl" --endpoint "$API" operations wait "$OP"
is "$(wc -l <"$API_LOG" | tr -d ' ')" 3 "three polls"
is "$(gaps "$API_LOG" | awk '{ print ($1 >= 0.095) }' | tr -d '\n')" 11 "each after at least the backoff's 0.1 s"
