#!/usr/bin/env bash
# apply --remote: the verify after the PATCH reads the partitions through
# callSlurmRestApi (lib/mdc_slurmrest.c, mdc_verify's partitions hook),
# with no Slurm on PATH: the values slurmrestd shows are checked, the
# keys it does not show (config, OverSubscribe) are said to be unchecked,
# and a partition the cluster does not show is NOT APPLIED (exit 10).
# Real slurmctld and slurmrestd (slurm-lab --managed --rest).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v slurmrestd >/dev/null || skip_all "slurmrestd is not installed (scripts/install-deps)"
lab_mdc_env --rest
plan 9
show_on_fail "$LAB_DIR/log/slurmrestd.out" "$TEST_DIR/err" "$TEST_DIR/out"
rest_reads() { jq -r 'select(.path | endswith(":callSlurmRestApi")) | .body.path' "$log" | grep -c '/partitions$'; }

n=$(lab_syncs)
"$MDCCTL" --yes partition create p2 --node-pools compute MaxTime=90 PriorityTier=3 >/dev/null 2>"$TEST_DIR/err" ||
	fail "create partition p2: $(cat "$TEST_DIR/err")"
lab_wait_sync "$n" || diag "partition p2 not applied in time"

# p2's MaxTime and PriorityTier change, OverSubscribe and a config key are new
sed -E '/^PartitionName=p2 /{s/MaxTime=[^ ]*/MaxTime=150/; s/PriorityTier=[^ ]*/PriorityTier=5/; s/$/ OverSubscribe=YES/}' \
	"$SLURM_CONF" >"$TEST_DIR/new.conf"
echo "SlurmctldTimeout=130" >>"$TEST_DIR/new.conf"
r0=$(rest_reads)
env PATH=/nonexistent "$MDCCTL" --remote --yes apply "$TEST_DIR/new.conf" >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 0 "apply --remote with no Slurm on PATH: applied and verified (exit 0)"
v=$(grep '^verify: ' "$TEST_DIR/out" | sort)
like "$v" "^verify: ok: partition p2 MaxTime=150$" "verify: MaxTime as slurmrestd shows it"
like "$v" "^verify: ok: partition p2 PriorityTier=5$" "verify: PriorityTier"
like "$v" "^verify: not checked: partition p2 OverSubscribe: not shown through the Slurm REST API" \
	"a partition key slurmrestd does not show: not checked, not a failure"
like "$v" "^verify: not checked: config SlurmctldTimeout: not shown through the Slurm REST API" \
	"config keys: not checked through the REST API"
ok "the verify read the partitions through callSlurmRestApi" test "$(rest_reads)" -gt "$r0"
is "$(scontrol show partition p2 | grep -o 'MaxTime=[^ ]*\|PriorityTier=[^ ]*' | tr '\n' ' ')" \
	"MaxTime=02:30:00 PriorityTier=5 " "slurmctld really has the values verify saw"

# a cluster whose slurmctld is not the one slurmrestd serves: an emulator
# of its own forwarding to the lab's slurmrestd.  A partition it creates
# never shows up there, and verify says so.
emu_up --token admin-t --slurmrestd "$MDC_SLURMRESTD"
EMU_AUTH="Authorization: Bearer admin-t"
emu_create_cluster c1 >/dev/null || fail "create c1"
E() { env -u MDC_TOKEN_FILE MDC_ENDPOINT="$EMU_URL" MDC_CLUSTER="$EMU_PARENT/modelDevelopmentClusters/c1" \
	MDC_ACCESS_TOKEN=admin-t SLURM_CONF=/nonexistent PATH=/nonexistent "$MDCCTL" "$@"; }
E render >"$TEST_DIR/c1.conf" 2>"$TEST_DIR/err" || fail "render c1: $(cat "$TEST_DIR/err")"
echo "PartitionName=gpu2 Nodes=cpu MaxTime=30" >>"$TEST_DIR/c1.conf"
E --remote --yes apply --verify-timeout 2 "$TEST_DIR/c1.conf" >"$TEST_DIR/out" 2>"$TEST_DIR/err"
is "$?" 10 "a partition the cluster does not show: exit 10 (applied, not verified)"
like "$(cat "$TEST_DIR/out")" "^verify: NOT APPLIED: partition gpu2: created, but slurmctld does not show it$" \
	"verify names the missing partition"
