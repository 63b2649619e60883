#!/usr/bin/env bash
# End to end with a real Slurm 22.05: a --managed lab wires the emulator
# to regenerate its slurm.conf and reconfigure slurmctld.  A PATCH of
# config PriorityWeightAge and of a partition's MaxTime shows up in
# `scontrol show config` / `scontrol show partition`.  A value the API
# accepts alone can still be refused by slurmctld (SchedulerType needs a
# restart on 22.05): the operation succeeds, Slurm keeps the old value;
# 24.11's reconfigure restarts slurmctld and applies it (MDC_LAB_RELEASE).
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"
. "$top_srcdir/tests/lib/emu.sh"

lab_up --managed
plan 11

api() { lab_curl "$@"; }
ok "the lab's cluster exists" test "$(api "$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER" | jq -r .state)" = RUNNING
ok "slurmctld answers" scontrol ping

op=$(api -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{
	"config":{"PriorityType":"priority/multifactor","PriorityWeightAge":"4321"},
	"partitions":[{"id":"debug","node_pool_ids":["compute"],"config":{"MaxTime":"120"}}]}}}' \
	"$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER?updateMask=orchestrator_spec.slurm_spec.config,orchestrator_spec.slurm_spec.partitions&updateMode=USER_ONLY")
name=$(jq -r .name <<<"$op")
like "$name" "/operations/[0-9]+$" "PATCH returns an operation"
EMU_URL=$MDC_ENDPOINT
is "$(emu_wait_op "$name" | jq -r 'has("error")')" false "the operation succeeds"

weight() { scontrol show config | grep -Eq '^PriorityWeightAge += 4321$'; }
maxtime() { scontrol show partition debug | grep -q 'MaxTime=02:00:00'; }
ok "scontrol show config: PriorityWeightAge = 4321" wait_until 30 weight
ok "scontrol show partition debug: MaxTime=02:00:00" wait_until 30 maxtime
ok "slurmctld still answers after the reconfigure" scontrol ping

# C13: accepted by the API, refused by slurmctld's reconfigure
op=$(api -X PATCH --data-binary '{"orchestrator_spec":{"slurm_spec":{"config":{"PriorityType":"priority/multifactor","PriorityWeightAge":"4321","SchedulerType":"sched/builtin"}}}}' \
	"$MDC_ENDPOINT/v1beta1/$MDC_CLUSTER?updateMask=orchestrator_spec.slurm_spec.config&updateMode=USER_ONLY")
is "$(emu_wait_op "$(jq -r .name <<<"$op")" | jq -r 'has("error")')" false "C13: the API accepts SchedulerType alone"
case ${MDC_LAB_RELEASE:-22.05} in
22.05)
	# (the reload applies the rest; the key waits for slurmctld's next restart)
	reload_pending() { grep -qx SchedulerType "$LAB_DIR/run/restart.pending" 2>/dev/null; }
	ok "C13: ... but slurmctld's reconfigure leaves it pending restart" wait_until 30 reload_pending
	like "$(scontrol show config | grep '^SchedulerType ')" "sched/backfill" "C13: Slurm keeps the old SchedulerType (verify after applying)"
	;;
*)
	# 23.11 and later answer a reconfigure by exec'ing slurmctld anew
	# (controller.c _try_to_reconfig): the key applies at once
	applied() { scontrol show config | grep -Eq '^SchedulerType += sched/builtin$'; }
	ok "C13: Slurm $MDC_LAB_RELEASE's reconfigure applies SchedulerType at once" wait_until 30 applied
	ok "C13: nothing is left pending restart on $MDC_LAB_RELEASE" test ! -s "$LAB_DIR/run/restart.pending"
	;;
esac
ok "C13: slurmctld still answers" scontrol ping
