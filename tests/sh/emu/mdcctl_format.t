#!/usr/bin/env bash
# --format on the emulator: describe json is the
# resource as the API shows it (lowerCamelCase, user maps untouched),
# yaml and value(...) as gcloud prints them, --quiet as gcloud's; and
# --help after any subcommand.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
plan 14
emu_mdcctl_env c1

M --yes config set PreemptType=preempt/partition_prio PreemptMode=REQUEUE >/dev/null
json=$(M describe --format json)
is "$(jq -r '.orchestratorSpec.slurmSpec.defaultPartitionId' <<<"$json")" cpu \
	"describe --format json: lowerCamelCase, as the API answers"
is "$(jq -r '.orchestratorSpec.slurmSpec.config.PreemptType' <<<"$json")" preempt/partition_prio \
	"user maps keep their keys"
is "$(jq -r 'paths | map(tostring) | join(".")' <<<"$json" | grep -c '_')" 0 \
	"no snake_case field name left"
is "$(M describe --format 'value(name,orchestratorSpec.slurmSpec.defaultPartitionId)')" \
	"$MDC_CLUSTER	cpu" "value(a,b): tab-separated fields"
is "$(M describe --format 'value(orchestrator_spec.slurm_spec.partitions.id)')" "" \
	"a path through a list is empty (gcloud's value() does not flatten lists)"
is "$(M describe --format 'value(nodePools)' | tr ';' '\n' | wc -l)" \
	"$(jq '.nodePools | length' <<<"$json")" "a list field is joined with ';'"
yaml=$(M describe --format yaml)
like "$yaml" "^name: $MDC_CLUSTER" "yaml: top-level keys"
is "$(grep -A1 '^orchestratorSpec:$' <<<"$yaml" | tail -1)" "  slurmSpec:" "yaml: nested maps indented by two"
if command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null; then
	is "$(python3 -c 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))' <<<"$yaml" | jq -S -c .)" \
		"$(jq -S -c . <<<"$json")" "yaml reads back as the same document as json"
else
	skip "yaml reads back as the same document as json" "python3-yaml is not installed"
fi
out=$(M --format 'value(name:label=X)' describe 2>&1); rc=$?
is "$rc" "$EXIT_USAGE" "gcloud's value attributes are refused"
like "$out" "attributes are not supported" "saying so"
out=$(M --format xml describe 2>&1)
like "$out" "use text, json, yaml or value\(FIELD,...\)" "an unknown format names the accepted ones"

# --quiet is gcloud's: no prompt, the default answer (yes)
: >"$EMU_LOG"
ok "config unset with --quiet (no terminal, no prompt)" M --quiet config unset PreemptType PreemptMode
out=$(M config show --help); rc=$?
like "$rc:$out" "^0:usage: mdcctl config" "config show --help: usage, exit 0"
