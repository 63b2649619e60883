#!/usr/bin/env bash
# A partition QOS slurmctld does not know, on a lab with a real slurmdbd
# (slurm-lab --accounting): with AccountingStorageEnforce holding qos,
# slurmctld stops at its next start ("Partition debug has an invalid qos")
# although the live update takes it.  mdc-scontrol and mdcctl refuse it
# before anything is sent, take a QOS that exists, and warn about unknown
# AllowQos names (slurmctld ignores them); slurmctld still starts.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

for c in sacctmgr slurmdbd mariadbd mariadb-install-db; do
	command -v "$c" >/dev/null || skip_all "$c is not installed (scripts/install-deps)"
done
need_root
lab_mdc_env --accounting
plan 12

patches() { grep -c '"method":"PATCH"' "$log"; }
pqos() { scontrol show partition debug --oneliner | sed -n 's/.* QoS=\([^ ]*\).*/\1/p'; }
settle() { lab_wait_sync "$1" 60 || diag "no reload within 60 s"; }

syncs=$(lab_syncs)
ok "AccountingStorageEnforce=associations,limits,qos" \
	"$MDCCTL" --yes config set AccountingStorageEnforce=associations,limits,qos
settle "$syncs"
like "$(scontrol show config | grep AccountingStorageEnforce)" "qos" "slurmctld enforces qos"

before=$(patches)
out=$("$MS" update PartitionName=debug QOS=nosuch 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "mdc-scontrol update QOS=nosuch is refused (exit $EXIT_REFUSED)"
like "$out" "QOS=nosuch is not a QOS slurmctld knows.*stops at its next start.*sacctmgr add qos nosuch" \
	"saying slurmctld would stop and what to do"
out=$("$MDCCTL" --yes partition update debug QOS=nosuch 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "mdcctl partition update likewise"
is "$(patches)" "$before" "nothing was sent"
isnt "$(pqos)" nosuch "the live partition does not have it either"

syncs=$(lab_syncs)
ok "QOS=normal (exists) is taken" "$MS" -Q update PartitionName=debug QOS=normal
settle "$syncs"
out=$("$MS" update PartitionName=debug AllowQos=normal,bogus 2>&1); rc=$?
is "$rc" 0 "AllowQos with an unknown name is taken ..."
like "$out" "'bogus' is not a QOS slurmctld knows: it is ignored" "... with a warning"
"$LAB_SCRIPT" restart "$LAB_DIR" >/dev/null 2>&1 || diag "slurm-lab restart failed"
ok "slurmctld starts again with the managed slurm.conf" wait_until 30 scontrol ping
is "$(pqos)" normal "with QOS=normal"
