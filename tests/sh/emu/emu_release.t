#!/usr/bin/env bash
# The emulator stands for one Slurm release (--slurm-release): its
# regeneration writes a slurm.conf that release's slurmctld
# starts with -- the service's own lines of --slurm-base included (no
# select/cons_res on 24.11, keys the release dropped or does not have yet
# left out) -- and a spec setting the release does not know is refused as
# the service refuses, naming the release.  release_proofs.t / lab runs
# with MDC_LAB_RELEASE=24.11 start a real 24.11 slurmctld from it.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 19
# a base as a 22.05-era service wrote it: select/cons_res, keys 24.11
# dropped (CoreSpecPlugin defunct, SlurmctldPlugstack gone), and one only
# 26.05 reads (EpilogTimeout)
cat >"$TEST_DIR/base.conf" <<'EOF2'
# service-managed part
ClusterName=emu
SlurmctldHost=node0(127.0.0.1)
SelectType=select/cons_res
SelectTypeParameters=CR_Core
CoreSpecPlugin=core_spec/none
SlurmctldPlugstack=/etc/slurm/plugstack.conf
EpilogTimeout=30
MaxBatchRequeue=3
NodeName=node0 CPUs=2 RealMemory=1000 State=UNKNOWN
NodeSet=cpu Nodes=node0
EOF2
CONF=$TEST_DIR/slurm.conf
bin=$(emu_bin)

# a release the emulator does not know is refused at start
out=$("$bin" --listen 127.0.0.1:0 --slurm-release 23.02 2>&1); rc=$?
is "$rc" 2 "--slurm-release 23.02: exit 2"
like "$out" "invalid --slurm-release '23.02': expected 22.05, 24.11 or 26.05" "... naming the releases"

emu_up --slurm-conf "$CONF" --slurm-base "$TEST_DIR/base.conf" --slurm-release 24.11
emu_create_cluster c1 >/dev/null
ok "24.11: slurm.conf written" wait_until 20 test -s "$CONF"
conf=$(cat "$CONF")
like "$conf" '^SelectType=select/cons_tres$' "select/cons_res (gone in 23.11) is written as select/cons_tres"
unlike "$conf" "cons_res" "... and cons_res nowhere"
unlike "$conf" "CoreSpecPlugin" "CoreSpecPlugin (defunct in 24.11) not written"
unlike "$conf" "SlurmctldPlugstack" "SlurmctldPlugstack (removed) not written"
unlike "$conf" "EpilogTimeout" "EpilogTimeout (26.05 only) not written"
like "$conf" '^MaxBatchRequeue=3$' "MaxBatchRequeue (a 24.11 key) kept"
is "$(head -6 <<<"$conf" | tr '\n' ' ')" "# service-managed part ClusterName=emu SlurmctldHost=node0(127.0.0.1) SelectType=select/cons_tres SelectTypeParameters=CR_Core MaxBatchRequeue=3 " \
	"the other service lines kept, in order"
like "$(grep '^PartitionName=cpu' "$CONF")" "Nodes=cpu" "the spec's partition rendered"

# a spec key 24.11 does not have: the service's validation error, naming 24.11
body=$(emu_standard_cluster | jq -c '.orchestrator_spec.slurm_spec.config = {"EpilogTimeout": "60"}')
resp=$(emu_curl -w '\n%{http_code}' -X POST --data-binary "$body" "$EMU_CLUSTERS?model_development_cluster_id=c2")
is "$(tail -1 <<<"$resp")" 400 "create with EpilogTimeout on 24.11: 400"
resp=$(sed '$d' <<<"$resp")
is "$(jq -r .error.status <<<"$resp")" INVALID_ARGUMENT "... INVALID_ARGUMENT"
like "$(jq -r .error.message <<<"$resp")" \
	"^List of found errors:	1.Field: model_development_cluster.orchestrator_spec.slurm_spec.config; Message: EpilogTimeout: EpilogTimeout is not a key of Slurm 24.11, the release judged against: it came with a later release" \
	"... the service's message, naming 24.11"
is "$(jq -r '.error.details[0].fieldViolations[0].field' <<<"$resp")" \
	model_development_cluster.orchestrator_spec.slurm_spec.config "... BadRequest names the field"
is "$(emu_curl -o /dev/null -w '%{http_code}' "$EMU_CLUSTERS/c2")" 404 "... and no cluster c2"

# a PATCH of a partition setting a plugin 24.11 does not ship is refused too
before=$(cat "$CONF")
resp=$(emu_curl -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{"config":{"PowerPlugin":"power/none"}}}}' \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.config&updateMode=USER_ONLY")
like "$(jq -r .error.message <<<"$resp")" "PowerPlugin is defunct in Slurm 24.11" "PATCH with PowerPlugin (defunct in 24.11): refused naming 24.11"
sleep 0.3
is "$(cat "$CONF")" "$before" "... slurm.conf unchanged"
emu_stop

# the same spec key on 26.05, which reads it, is rendered
rm -f "$CONF"
emu_up --slurm-conf "$CONF" --slurm-base "$TEST_DIR/base.conf" --slurm-release 26.05
emu_standard_cluster | jq -c '.orchestrator_spec.slurm_spec.config = {"EpilogTimeout": "60"}' >"$TEST_DIR/c3.json"
emu_create_cluster c3 "$TEST_DIR/c3.json" >/dev/null
ok "26.05: EpilogTimeout from the spec rendered (over the base's)" wait_until 20 grep -qx 'EpilogTimeout=60' "$CONF"
