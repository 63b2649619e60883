#!/usr/bin/env bash
# No lost update across hosts (the API has no etag): on a managed
# multi-host lab, whose emulator is a host of its own reached over https,
# an admin on login1 and one on login2 change different settings at the
# same moment, 50 rounds serialised by the writer lock on the shared
# storage (LockDir in the shared mdc.conf), then 50 rounds through the one
# broker of the cluster (mdcd on login1, reached over TCP from login2).
# Every round both changes are in the spec and in the live slurmctld.  Over
# TCP the munge credential still binds the request: a replay is refused.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/hosts.sh"

hosts_need openssl jq curl
[ -x "$top_builddir/mdc-emulator" ] && [ -x "$top_builddir/mdcctl" ] || skip_all "the tools are not built"
show_on_fail "$D/hosts/api/log/emulator.log" "$TEST_DIR/rounds.log" "$D/hosts/login1/log/mdcd.log"
hosts_up --managed --broker --compute 1 --login 2 --lro-seconds 0
plan 18
M=$top_builddir/mdcctl
ROUNDS=50

like "$MDC_ENDPOINT" '^https://198\.1[89]\.[0-9]+\.250:[0-9]+$' \
	"the service is the lab's api host, reached over https"
is "$(slurm-lab hosts "$D" | awk '$1 == "api" {print $2}')" service "hosts lists the service host"

# the shared mdc.conf: the writer lock on the shared storage
mkdir -p "$D/shared/storage/lock"
printf 'LockDir = %s\n' "$D/shared/storage/lock" >"$D/shared/storage/mdc.conf"
export MDC_CONF=$D/shared/storage/mdc.conf

# spec HOST: the cluster as the API holds it, read from HOST
spec() {
	slurm-lab exec "$D" "$1" -- curl -sS --max-time 10 --cacert "$MDC_CA_CERT_FILE" \
		-H @<(printf 'Authorization: Bearer %s\n' "$(<"$MDC_TOKEN_FILE")") \
		"$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER"
}
live() {
	local k w
	k=$(slurm-lab exec "$D" login1 -- scontrol show config | sed -n 's/^KillWait *= *\([0-9]*\) sec$/\1/p')
	w=$(slurm-lab exec "$D" login1 -- scontrol show partition debug -o | grep -o 'MaxTime=[^ ]*')
	echo "$k $w"
}

# rounds FIRST: ROUNDS rounds of two writers at once, from FIRST on
rounds() {
kept_spec=0 kept_live=0 fails=0
for ((i = $1; i < $1 + ROUNDS; i++)); do
	mt=$((100 + i)) kw=$((30 + i))
	slurm-lab exec "$D" login1 -- "$M" --yes partition update debug MaxTime=$mt \
		>>"$TEST_DIR/rounds.log" 2>&1 &
	p1=$!
	slurm-lab exec "$D" login2 -- "$M" --yes config set KillWait=$kw \
		>>"$TEST_DIR/rounds.log" 2>&1 &
	p2=$!
	wait "$p1" || fails=$((fails + 1))
	wait "$p2" || fails=$((fails + 1))
	s=$(spec login2 | jq -r --arg p debug '[(.orchestrator_spec // .orchestratorSpec | (.slurm_spec // .slurmSpec) |
		(.config.KillWait // ""), (.partitions[] | select(.id == $p) | .config.MaxTime // "")) ] | join(" ")')
	[ "$s" = "$kw $mt" ] && kept_spec=$((kept_spec + 1)) || echo "round $i: spec '$s', want '$kw $mt'" >>"$TEST_DIR/rounds.log"
	want="$kw MaxTime=$(printf '%02d:%02d:00' $((mt / 60)) $((mt % 60)))"
	# the emulator reloads slurmctld right after each operation
	for ((t = 0; t < 50; t++)); do
		[ "$(live)" = "$want" ] && break
		sleep 0.2
	done
	[ "$(live)" = "$want" ] && kept_live=$((kept_live + 1)) || echo "round $i: live '$(live)', want '$want'" >>"$TEST_DIR/rounds.log"
done
is "$fails" 0 "$2: all $((2 * ROUNDS)) writes from the two login hosts succeeded"
is "$kept_spec" "$ROUNDS" "$2: both changes of every round are in the spec ($kept_spec/$ROUNDS)"
is "$kept_live" "$ROUNDS" "$2: both changes of every round are in the live slurmctld ($kept_live/$ROUNDS)"
}

# 1. no broker: the writer lock on the shared storage
broker=$MDC_BROKER
unset MDC_BROKER
rounds 1 "shared lock"

# the lock both hosts took is the shared one, not a host-local one
is "$(ls "$D/shared/storage/lock" | wc -l)" 1 "one lock file on the shared storage"
is "$(ls "$D"/hosts/login*/lock | grep -c '^mdc-')" 0 "no host-local lock was taken"
writes=$(grep -c '"method": *"PATCH"\|"method":"PATCH"' "$D/emu/requests.log")
is "$writes" $((2 * ROUNDS)) "the service received exactly $((2 * ROUNDS)) updates"
like "$(grep -c 'updated$' "$TEST_DIR/rounds.log")" "^$((2 * ROUNDS))\$" "each write reported its update"

# 2. the broker: mdcd on login1, login2 reaches it over TCP
export MDC_BROKER=$broker
is "$MDC_BROKER" login1:6830 "up --broker exports the cluster's broker, on login1"
rounds $((ROUNDS + 1)) broker
audit=$(grep -c '"op":"update"' "$D/hosts/login1/state/mdcd/audit.log" 2>/dev/null)
is "$audit" $((2 * ROUNDS)) "mdcd audited the $((2 * ROUNDS)) writes of both hosts"
is "$(grep -c '"method": *"PATCH"\|"method":"PATCH"' "$D/emu/requests.log")" $((4 * ROUNDS)) \
	"the service received $((2 * ROUNDS)) more updates"

# over TCP the credential still binds one request once
body='{"op":"get","path":"v1beta1/'$MDC_CLUSTER'","v":1}'
cred=$(slurm-lab exec "$D" login2 -- munge -s "mdcd/1 sha256=$(printf %s "$body" | sha256sum | cut -d' ' -f1)" \
	--socket="$MDC_MUNGE_SOCKET" </dev/null)
env_line=$(jq -cn --arg c "$cred" --arg b "$body" '{mdcd: 1, cred: $c, body: $b}')
send() { slurm-lab exec "$D" login2 -- timeout 10 bash -c 'exec 3<>/dev/tcp/login1/6830; printf "%s\n" "$1" >&3; head -c 300 <&3' _ "$1"; }
like "$(send "$env_line")" '"name"|"state"|RUNNING' "a request with its own credential is answered over TCP"
like "$(send "$env_line")" 'replayed' "the same credential again is refused as replayed"
other=$(jq -cn --arg c "$cred" --arg b "${body/get/list}" '{mdcd: 1, cred: $c, body: $b}')
like "$(send "$other")" 'replayed|made for another request' "a credential with another body is refused"
