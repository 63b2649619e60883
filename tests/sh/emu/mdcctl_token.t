#!/usr/bin/env bash
# The bearer token goes only where it should, answers
# and token files are bounded, a process holding a token dumps no core,
# and Ctrl-C is honoured at once during a slow request and a retry backoff.
# Only 127.0.0.0/8 is ever contacted: a URL naming another host is refused
# before any connection.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 31
export MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR MDC_RETRY_BASE_MS=10
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL no_proxy NO_PROXY
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
M() { "$top_builddir/mdcctl" "$@"; }
TOK=secret-tok-16
export LISTEN_TOKEN=$TOK	# what the metadata stand-in hands out

# A tiny listener on 127.0.0.1 and 127.0.0.2 (one process: python starts
# slowly on a loaded machine): it logs each request (address, request line,
# whether it carried an Authorization header), then answers by the first
# path segment: /hang never, /endless with a body that never ends, /token
# with a metadata-server token; anything else (a proxied request, too)
# gets 502.
cat >"$TEST_DIR/listen.py" <<'PY'
import json, os, socket, sys, threading, time
portfile, log = sys.argv[1:3]
lock = threading.Lock()
def serve(c, host):
    try:
        data = b""
        while b"\r\n\r\n" not in data:
            d = c.recv(65536)
            if not d:
                return
            data += d
        lines = data.split(b"\r\n\r\n")[0].decode("latin1").split("\r\n")
        path = lines[0].split(" ")[1] if " " in lines[0] else ""
        with lock, open(log, "a") as f:
            f.write(json.dumps({"host": host, "request": lines[0],
                                "auth": any(l.lower().startswith("authorization:") for l in lines[1:])}) + "\n")
        if path.startswith("/hang/"):
            time.sleep(120)
        elif path.startswith("/endless/"):
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
            chunk = b" " * 65536
            while True:
                c.sendall(chunk)
        elif path.startswith("/token"):
            body = json.dumps({"access_token": os.environ["LISTEN_TOKEN"], "expires_in": 3600}).encode()
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                      b"Content-Length: %d\r\n\r\n" % len(body) + body)
        else:
            c.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
    except Exception:
        pass
    finally:
        c.close()
def accept(s, host):
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c, host), daemon=True).start()
ports = []
for host in ("127.0.0.1", "127.0.0.2"):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, 0))
    s.listen(64)
    ports.append(str(s.getsockname()[1]))
    threading.Thread(target=accept, args=(s, host), daemon=True).start()
with open(portfile + ".tmp", "w") as f:
    f.write(" ".join(ports))
os.rename(portfile + ".tmp", portfile)
while True:
    time.sleep(3600)
PY
L_LOG=$TEST_DIR/listen.log
: >"$L_LOG"
python3 "$TEST_DIR/listen.py" "$TEST_DIR/listen.port" "$L_LOG" 2>"$TEST_DIR/listen.err" &
at_exit "kill $! 2>/dev/null"
show_on_fail "$TEST_DIR/listen.err"
wait_until 30 test -s "$TEST_DIR/listen.port" || skip_all "the test listener did not start"
read -r L1 L2 <"$TEST_DIR/listen.port"
L=http://127.0.0.1:$L1
# seen HOST [PATH-PREFIX]: requests the listener got on HOST (under PREFIX)
seen() { jq -r --arg h "$1" --arg p "${2:-}" 'select(.host == $h and (.request | split(" ")[1] | startswith($p))) | .request' "$L_LOG" | wc -l | tr -d ' '; }
requests() { wc -l <"$1" | tr -d ' '; }
# exited PID: true once PID has exited
exited() { ! kill -0 "$1" 2>/dev/null; }

emu_up --token "$TOK"
export EMU_AUTH="Authorization: Bearer $TOK"
emu_create_cluster c1 >/dev/null ||
	skip_all "cannot create the test cluster"
export MDC_ENDPOINT=$EMU_URL

# --- userinfo: the host is what follows '@' --------------------------------------
for url in "http://localhost:x@127.0.0.2:$L2" "http://127.0.0.1:x@127.0.0.2:$L2" \
	"http://[::1]@127.0.0.2:$L2"; do
	err=$(MDC_ENDPOINT=$url MDC_ACCESS_TOKEN=$TOK M describe 2>&1 >/dev/null); rc=$?
	is "$rc" "$EXIT_REFUSED" "refused: $url"
	like "$err" "user name or password before '@'" "... saying why"
done
is "$(seen 127.0.0.2)" 0 "the host behind '@' never got a request"
# 192.0.2.2 (TEST-NET-1) is refused before any connection is attempted
err=$(MDC_ENDPOINT=http://localhost:x@192.0.2.2:18080 MDC_ACCESS_TOKEN=$TOK M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "http://localhost:x@192.0.2.2:18080 is refused before connecting"
unlike "$err" ":x@" "and the password-like part is not echoed"

# --- proxies --------------------------------------------------------------------------
PROXY=$L
: >"$EMU_LOG"
out=$(http_proxy=$PROXY HTTP_PROXY=$PROXY https_proxy=$PROXY ALL_PROXY=$PROXY \
	MDC_ACCESS_TOKEN=$TOK M describe 2>&1); rc=$?
is "$rc" "$EXIT_OK" "describe through http_proxy set: the loopback endpoint is reached directly"
is "$(seen 127.0.0.1)" 0 "the proxy saw nothing (no token through it)"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "the emulator got the GET"
# the metadata-server token request does not go through the proxy either
out=$(http_proxy=$PROXY HTTP_PROXY=$PROXY ALL_PROXY=$PROXY \
	MDC_METADATA_URL=$L/token M describe 2>&1); rc=$?
is "$rc" "$EXIT_OK" "a metadata-server token with http_proxy set"
is "$(seen 127.0.0.1 /token)" 1 "the metadata stand-in was asked directly"
is "$(seen 127.0.0.1 http:)" 0 "the proxy still saw nothing"

# --- bounded answers ---------------------------------------------------------------
err=$(MDC_ENDPOINT=$L/endless timeout 60 "$top_builddir/mdcctl" describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_HTTP" "an endless answer is cut off (exit $EXIT_HTTP, not a timeout or the OOM killer)"
like "$err" "larger than [0-9]+ bytes" "... saying it was too large"
is "$(seen 127.0.0.1 /endless/)" 1 "and not retried"

# --- token files ------------------------------------------------------------------------
printf '%s\n' "$TOK" >"$TEST_DIR/token"
chmod 644 "$TEST_DIR/token"
err=$(MDC_TOKEN_FILE=$TEST_DIR/token M describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_AUTH" "a world-readable token file is refused"
like "$err" "chmod 600" "... saying how to fix it"
unlike "$err" "$TOK" "... without showing the token"
chmod 600 "$TEST_DIR/token"
ok "the same file mode 600 is used" env MDC_TOKEN_FILE="$TEST_DIR/token" "$top_builddir/mdcctl" describe
mkfifo -m 600 "$TEST_DIR/token.fifo"
err=$(MDC_TOKEN_FILE=$TEST_DIR/token.fifo timeout 20 "$top_builddir/mdcctl" describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_AUTH" "a FIFO as token file is refused at once (no hang)"
ln -s /dev/zero "$TEST_DIR/token.zero"
err=$(MDC_TOKEN_FILE=$TEST_DIR/token.zero timeout 20 "$top_builddir/mdcctl" describe 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_AUTH" "a symlink to /dev/zero as token file is refused"
like "$err" "character device" "... naming what it is"

# --- a slow request: no core dumps, Ctrl-C honoured at once --------------------------
MDC_ENDPOINT=$L/hang MDC_ACCESS_TOKEN=$TOK \
	"$top_builddir/mdcctl" describe >"$TEST_DIR/slow.out" 2>"$TEST_DIR/slow.err" &
pid=$!
at_exit "kill -9 $pid 2>/dev/null"
slow_seen() { [ "$(seen 127.0.0.1 /hang/)" = 1 ]; }
wait_until 20 slow_seen
like "$(grep -i '^max core file size' /proc/$pid/limits)" "^Max core file size +0 +0 " \
	"a tool holding a token has RLIMIT_CORE 0"
kill -INT "$pid"
wait_until 5 exited "$pid"; gone=$?
wait "$pid"; rc=$?
is "$gone/$rc" "0/$EXIT_INTERRUPTED" "Ctrl-C during a slow request: exits $EXIT_INTERRUPTED within 5 s"
like "$(cat "$TEST_DIR/slow.err")" "interrupted" "... saying it was interrupted"

# --- Ctrl-C during the retry backoff --------------------------------------------------
emu_stop
EMU_DIR_NEXT=$EMU_DIR emu_start --token "$TOK" --fault GET:503:1 || skip_all "cannot restart the emulator"
: >"$EMU_LOG"
# a 10-20 s backoff after the first 503 (-v: it says when it starts)
MDC_ENDPOINT=$EMU_URL MDC_ACCESS_TOKEN=$TOK MDC_RETRY_BASE_MS=20000 \
	"$top_builddir/mdcctl" -v describe >/dev/null 2>"$TEST_DIR/backoff.err" &
pid=$!
at_exit "kill -9 $pid 2>/dev/null"
wait_until 20 grep -q "retrying in" "$TEST_DIR/backoff.err"
kill -INT "$pid"
wait_until 5 exited "$pid"; gone=$?
wait "$pid"; rc=$?
is "$gone/$rc" "0/$EXIT_INTERRUPTED" "Ctrl-C during the retry backoff: exits $EXIT_INTERRUPTED within 5 s"
like "$(cat "$TEST_DIR/backoff.err")" "interrupted while waiting to retry" "... saying so"
is "$(requests "$EMU_LOG")" 1 "no retry was sent after Ctrl-C"
