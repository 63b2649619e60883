#!/usr/bin/env bash
# The emulator renders for the lab's Slurm release: a
# --managed lab passes its release to mdc-emulator (--slurm-release), whose
# regeneration writes a slurm.conf that release's own slurmctld restarts
# from.  On a release after 22.05 the service's lines are first made
# 22.05-era (select/cons_res, SlurmctldPlugstack, which 24.11 no longer
# has): the emulator writes them as the service does for that release.
# A setting the release does not know is refused, naming it.  Runs on the
# host's 22.05, and on 24.11 with MDC_LAB_RELEASE=24.11 (after
# scripts/release-root build 24.11 SRCDIR).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/emu.sh"

rel=${MDC_LAB_RELEASE:-22.05}
command -v jq >/dev/null || skip_all "jq is not installed"
lab_up --managed
plan 10
api() { lab_curl "$@"; }
EMU_URL=$MDC_ENDPOINT
CONF=$LAB_DIR/etc/slurm.conf BASE=$LAB_DIR/etc/slurm.base.conf
show_on_fail "$CONF"

like "$(command scontrol --version)" "^slurm(-wlm)? $rel\\." "the lab's Slurm is $rel"
like "$(tr '\0' ' ' <"/proc/$(cat "$LAB_DIR/run/emulator.pid")/cmdline")" "--slurm-release $rel( |$)" \
	"the lab's emulator stands for Slurm $rel"

if [ "$rel" != 22.05 ]; then
	# what a 22.05 service wrote: 24.11's slurmctld would not start with it
	sed -i 's|^SelectType=select/cons_tres$|SelectType=select/cons_res|' "$BASE"
	sed -i 's|^MailProg=.*|&\nSlurmctldPlugstack=/dev/null|' "$BASE"
fi

# a setting the release does not know: refused before anything is rendered
case $rel in
	22.05) key=MaxBatchRequeue val=3 why="is not a key of Slurm 22.05" ;;
	*) key=PowerPlugin val=power/none why="is defunct in Slurm $rel" ;;
esac
resp=$(api -X PATCH --data-binary "{\"orchestrator_spec\":{\"slurm_spec\":{\"config\":{\"$key\":\"$val\"}}}}" \
	"$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER?updateMask=orchestrator_spec.slurm_spec.config&updateMode=USER_ONLY")
like "$(jq -r .error.message <<<"$resp")" \
	"^List of found errors:	1.Field: model_development_cluster.orchestrator_spec.slurm_spec.config; Message: $key: $key $why" \
	"$key=$val on $rel: the service's refusal, naming $rel"

n=$(lab_syncs)
op=$(api -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityType":"priority/multifactor","PriorityWeightAge":"4321"}}}}' \
	"$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER?updateMask=orchestrator_spec.slurm_spec.config&updateMode=USER_ONLY")
is "$(emu_wait_op "$(jq -r .name <<<"$op")" | jq -r 'has("error")')" false "a config PATCH succeeds"
ok "... and is applied" lab_wait_sync "$n"
conf=$(cat "$CONF")
like "$conf" '^SelectType=select/cons_tres$' "the rendered SelectType is one $rel ships"
unlike "$conf" 'cons_res|SlurmctldPlugstack' "... and no line $rel does not know"

# the release's slurmctld starts from the emulator's file
"$LAB_SCRIPT" restart "$LAB_DIR" >"$TEST_DIR/restart.out" 2>&1
is "$?" 0 "slurm-lab restart: Slurm $rel's slurmctld starts from the rendered file"
ok "slurmctld answers after the restart" wait_until 30 command scontrol ping
weight() { scontrol show config | grep -Eq '^PriorityWeightAge += 4321$'; }
ok "scontrol show config: PriorityWeightAge = 4321" wait_until 30 weight
