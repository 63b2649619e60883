#!/usr/bin/env bash
# --token and --read-only-token: 401 UNAUTHENTICATED without the bearer
# token, 403 PERMISSION_DENIED on writes with the read-only one.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 10
emu_up --token admin-t --read-only-token reader-t
EMU_AUTH="Authorization: Bearer admin-t"
emu_create_cluster c1 >/dev/null || fail "create with the admin token"

req() { curl -s -o "$TEST_DIR/b" -w '%{http_code}' "$@"; }
st() { jq -r '"\(.error.code) \(.error.status)"' "$TEST_DIR/b"; }

is "$(req "$EMU_CLUSTERS/c1") $(st)" "401 401 UNAUTHENTICATED" "no token: 401 UNAUTHENTICATED"
is "$(req -H 'Authorization: Bearer wrong' "$EMU_CLUSTERS/c1") $(st)" "401 401 UNAUTHENTICATED" "wrong token: 401"
is "$(req -H 'Authorization: Basic admin-t' "$EMU_CLUSTERS/c1")" 401 "not a bearer token: 401"
is "$(req -H 'Authorization: Bearer admin-t' "$EMU_CLUSTERS/c1")" 200 "admin token reads"
is "$(req -H 'Authorization: Bearer reader-t' "$EMU_CLUSTERS/c1")" 200 "read-only token reads"
is "$(req -H 'Authorization: Bearer reader-t' "$EMU_CLUSTERS")" 200 "read-only token lists"
is "$(req -H 'Authorization: Bearer reader-t' -X PATCH --data-binary '{"labels":{}}' "$EMU_CLUSTERS/c1?updateMask=labels") $(st)" \
	"403 403 PERMISSION_DENIED" "read-only token PATCH: 403 PERMISSION_DENIED"
is "$(req -H 'Authorization: Bearer reader-t' -X DELETE "$EMU_CLUSTERS/c1")" 403 "read-only token DELETE: 403"
is "$(req -H 'Authorization: Bearer admin-t' "$EMU_CLUSTERS/c1" && jq -r .labels.team "$TEST_DIR/b")" "200ml" "refused writes changed nothing"
is "$(req -H 'Authorization: Bearer admin-t' -X PATCH --data-binary '{"labels":{}}' "$EMU_CLUSTERS/c1?updateMask=labels")" 200 "admin token writes"
