#!/usr/bin/env bash
# Regeneration: after each successful create/update the emulator renders
# --slurm-base + the spec to --slurm-conf (atomically) and, after
# --sync-delay, runs --reload-cmd, or --restart-cmd when the node set
# changed.  Commands here only record themselves; emu_lab.t uses real Slurm.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

plan 16
cat >"$TEST_DIR/base.conf" <<'EOF2'
# service-managed part
ClusterName=emu
SlurmctldHost=node0(127.0.0.1)
NodeName=node0 CPUs=2 RealMemory=1000 State=UNKNOWN
NodeSet=cpu Nodes=node0
EOF2
CONF=$TEST_DIR/slurm.conf CMDS=$TEST_DIR/cmds
emu_start --slurm-conf "$CONF" --slurm-base "$TEST_DIR/base.conf" \
	--reload-cmd "echo reload \$PPID >>'$CMDS'" --restart-cmd "echo restart >>'$CMDS'" \
	--sync-delay 0.2 || { fail "emulator starts"; exit 1; }

emu_create_cluster c1 >/dev/null
ok "create: slurm.conf written" wait_until 20 test -s "$CONF"
ok "create: the node set is new, so the restart command runs" wait_until 20 grep -q '^restart$' "$CMDS"
like "$(cat "$CONF")" "^# service-managed part" "slurm.conf starts with the base"
like "$(grep '^PartitionName=cpu' "$CONF")" "Nodes=cpu.*Default=YES|Default=YES.*Nodes=cpu" "partition line from the spec"

op=$(emu_curl -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityWeightAge":"4321"},"partitions":[{"id":"cpu","node_pool_ids":["cpu"],"config":{"MaxTime":"120"}}]}}}' \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.config,orchestrator_spec.slurm_spec.partitions&updateMode=USER_ONLY")
emu_wait_op "$(jq -r .name <<<"$op")" >/dev/null
ok "config PATCH: PriorityWeightAge rendered" wait_until 20 grep -q '^PriorityWeightAge=4321' "$CONF"
like "$(grep '^PartitionName=cpu' "$CONF")" "MaxTime=120" "partition MaxTime rendered"
ok "config PATCH: the reload command runs (no node change)" wait_until 20 grep -q '^reload ' "$CMDS"
is "$(grep -c '^restart$' "$CMDS")" 1 "... and no restart"
is "$(ls "$TEST_DIR" | grep -c 'slurm.conf.tmp')" 0 "no temporary file left (atomic write)"

# a node-count change is a node-set change: restart
pools=$(emu_curl "$EMU_CLUSTERS/c1" | jq -c '[.nodePools[] | del(.nodeImage)] | (.[0].scalingSpec.maxNodeCount = 4)')
op=$(emu_curl -X PATCH --data-binary "{\"nodePools\":$pools}" "$EMU_CLUSTERS/c1?updateMask=node_pools&updateMode=USER_ONLY")
emu_wait_op "$(jq -r .name <<<"$op")" >/dev/null
restarts() { test "$(grep -c '^restart$' "$CMDS")" = "$1"; }
lines() { test "$(wc -l <"$CMDS")" = "$1"; }
ok "node pool resize: the restart command runs" wait_until 20 restarts 2

# a rejected PATCH renders nothing
before=$(cat "$CONF")
emu_curl -o /dev/null -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{"config":{"Prolog":"/x"}}}}' \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.config"
sleep 0.5
is "$(cat "$CONF")" "$before" "a rejected PATCH leaves slurm.conf alone"
n=$(wc -l <"$CMDS")
is "$n" 3 "... and runs no command"

# a labels-only change still regenerates (same text) and reloads
op=$(emu_curl -X PATCH --data-binary '{"labels":{"a":"b"}}' "$EMU_CLUSTERS/c1?updateMask=labels&updateMode=USER_ONLY")
emu_wait_op "$(jq -r .name <<<"$op")" >/dev/null
ok "every successful update reloads" wait_until 20 lines 4
is "$(cat "$CONF")" "$before" "... with the same slurm.conf"

# node attributes (node_sets config) are not a node-set change: reconfigure
op=$(emu_curl -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{"node_sets":[{"node_pool_id":"cpu","config":{"Weight":"5"}}]}}}' \
	"$EMU_CLUSTERS/c1?updateMask=orchestrator_spec.slurm_spec.node_sets&updateMode=USER_ONLY")
emu_wait_op "$(jq -r .name <<<"$op")" >/dev/null
ok "node_sets Weight rendered on the pool's NodeName line" wait_until 20 grep -q '^NodeName=node0 .*Weight=5' "$CONF"
ok "... and reloaded, not restarted" wait_until 20 eval 'lines 5 && tail -1 "$CMDS" | grep -q "^reload "'
