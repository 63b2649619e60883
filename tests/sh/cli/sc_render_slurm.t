#!/usr/bin/env bash
# sc_render_slurm.t - real Slurm accepts what sc_render writes, and reads it
# as we do: for generated specs (tests/sc/sc_gen.c) rendered on the test
# base, `SLURM_CONF=FILE scontrol show hostnames x` succeeds, Slurm's own
# parser (sc_oracle --verdict: slurm_conf_init in config-test mode) accepts
# the file, and sc_oracle --dump equals our readback of it.
# (owner: slurm.conf engine)
. "$top_srcdir/tests/lib/tap.sh"

TOOL=$top_builddir/tests/sc/sc_tool
ORACLE=$top_builddir/tests/sc/sc_oracle
SEEDS=${SC_RENDER_SEEDS:-40}

have_scontrol=0
command -v scontrol >/dev/null 2>&1 && have_scontrol=1
have_oracle=0
printf 'ClusterName=x\n' > "$TEST_DIR/probe.conf"
[ -x "$ORACLE" ] && "$ORACLE" --dump "$TEST_DIR/probe.conf" >/dev/null 2>&1 && have_oracle=1
[ "$have_scontrol$have_oracle" = 00 ] && skip_all "neither scontrol nor the libslurmfull oracle is available"

"$TOOL" base > "$TEST_DIR/base.conf" || { echo "Bail out! sc_tool base"; exit 1; }
for ((s = 1; s <= SEEDS; s++)); do
	d=$TEST_DIR/$s
	mkdir -p "$d"
	"$TOOL" gen "$s" > "$d/spec.json"
	if ! "$TOOL" render "$d/spec.json" "$TEST_DIR/base.conf" > "$d/slurm.conf" 2> "$d/render.err"; then
		fail "seed $s: render" "$(cat "$d/render.err")"
		continue
	fi
	if [ "$have_scontrol" = 1 ]; then
		out=$(SLURM_CONF=$d/slurm.conf scontrol show hostnames x 2>&1); rc=$?
		is "$rc:$out" "0:x" "seed $s: scontrol reads the rendered file"
	fi
	if [ "$have_oracle" = 1 ]; then
		is "$("$ORACLE" --verdict "$d/slurm.conf" 2>"$d/verdict.err")" ACCEPTED \
			"seed $s: slurm_conf_init accepts it"
		"$ORACLE" --dump "$d/slurm.conf" 2>/dev/null | sort > "$d/slurm.txt"
		"$TOOL" readback "$d/slurm.conf" | sort > "$d/ours.txt"
		files_eq "seed $s: Slurm reads what we read" "$d/ours.txt" "$d/slurm.txt"
	fi
done

# a key both the base and the spec's config set: the spec's value replaces
# the base's line (slurmctld would warn "specified more than once")
cat > "$TEST_DIR/over.json" <<'JSON'
{"node_pools":[{"id":"cpu","machine_spec":{"machine_type":"n2"},"scaling_spec":{"min_node_count":1,"max_node_count":2}}],
 "orchestrator_spec":{"slurm_spec":{"partitions":[{"id":"cpu","node_pool_ids":["cpu"]}],"default_partition_id":"cpu",
 "config":{"scheduler_type":"sched/builtin"}}}}
JSON
printf 'ClusterName=x\nSlurmctldHost=h(127.0.0.1)\nSchedulerType=sched/backfill\n' > "$TEST_DIR/over.base"
out=$("$TOOL" render "$TEST_DIR/over.json" "$TEST_DIR/over.base" 2>&1)
is "$(printf '%s\n' "$out" | grep -ci '^SchedulerType=')" 1 "a key set by both the base and config is written once"
like "$out" "^SchedulerType=sched/builtin$" "with the spec's value"

done_testing
