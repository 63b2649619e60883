#!/usr/bin/env bash
# mdcctl_tls.t - https goes through libcurl, loaded on first use (plain
# http:// to an address takes our own client): against a real TLS server
# (openssl s_server -WWW serving the emulator's answer for a cluster), a
# self-signed certificate is refused with libcurl's words, CACertFile /
# MDC_CA_CERT_FILE makes it trusted, and a CA file that cannot be read is
# an error before anything is sent.  (owner: client)
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v openssl >/dev/null || skip_all "no openssl program"
plan 7
MDCCTL=$top_builddir/mdcctl
export MDC_CONF=$TEST_DIR/empty.conf MDC_RETRY_BASE_MS=10 MDC_LOCK_DIR=$TEST_DIR
: >"$MDC_CONF"
unset MDC_TOKEN_FILE MDC_CA_CERT_FILE
export MDC_ACCESS_TOKEN=tls-test-token	# https needs one; s_server ignores it

# the answer a TLS server will give: the emulator's own for cluster c1
emu_up
emu_create_cluster c1 >/dev/null
WWW=$TEST_DIR/www
mkdir -p "$WWW/$EMU_API/$EMU_PARENT/modelDevelopmentClusters"
emu_curl -s "$EMU_CLUSTERS/c1" >"$WWW/$EMU_API/$EMU_PARENT/modelDevelopmentClusters/c1"
emu_stop

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
	-addext subjectAltName=IP:127.0.0.1 -keyout "$TEST_DIR/key.pem" -out "$TEST_DIR/cert.pem" \
	>/dev/null 2>&1
PORT=$(free_port)
(cd "$WWW" && exec openssl s_server -accept "127.0.0.1:$PORT" -cert "$TEST_DIR/cert.pem" \
	-key "$TEST_DIR/key.pem" -WWW -quiet >"$TEST_DIR/s_server.log" 2>&1) &
SPID=$!
at_exit "kill $SPID 2>/dev/null"
show_on_fail "$TEST_DIR/s_server.log"
tls_up() { openssl s_client -connect "127.0.0.1:$PORT" </dev/null >/dev/null 2>&1; }
ok "a TLS server on 127.0.0.1:$PORT" wait_until 10 tls_up

export MDC_ENDPOINT=https://127.0.0.1:$PORT MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/c1
out=$("$MDCCTL" describe 2>&1); rc=$?
is "$rc" 5 "a self-signed certificate: the transport's exit code"
like "$out" "GET https://127.0.0.1:$PORT/.*: SSL certificate problem: self-signed certificate" \
	"... in libcurl's words: https is verified"

out=$(MDC_CA_CERT_FILE=$TEST_DIR/cert.pem "$MDCCTL" describe 2>&1); rc=$?
is "$rc" 0 "MDC_CA_CERT_FILE trusts it"
like "$out" "^name: +$MDC_CLUSTER" "... and describe reads the cluster over https"

printf 'CACertFile = %s\n' "$TEST_DIR/cert.pem" >"$TEST_DIR/mdc.conf"
out=$(MDC_CONF=$TEST_DIR/mdc.conf "$MDCCTL" describe 2>&1); rc=$?
is "$rc:$(head -1 <<<"$out")" "0:name:              $MDC_CLUSTER" "CACertFile in mdc.conf does the same"

out=$(MDC_CA_CERT_FILE=$TEST_DIR/nosuch.pem "$MDCCTL" describe 2>&1); rc=$?
like "$rc $out" "^[1-9][0-9]* .*CACertFile '$TEST_DIR/nosuch.pem': No such file or directory" \
	"a CA file that cannot be read is an error that names it"
