#!/usr/bin/env bash
# mdcctl drift's command line: --help, and usage errors (exit 2) that
# reach no cluster and no slurmctld.  Needs neither root nor Slurm.
. "$top_srcdir/tests/lib/tap.sh"

plan 14
export MDC_CONF=/dev/null MDC_ENDPOINT=http://127.0.0.1:9 SLURM_CONF=/nonexistent
export MDC_CLUSTER=projects/p/locations/l/modelDevelopmentClusters/c

out=$("$top_builddir/mdcctl" drift --help 2>&1); rc=$?
is "$rc" "$EXIT_OK" "drift --help exits 0"
like "$out" '^usage: mdcctl drift \[--exit-code \| --adopt \[--key KEY\]\.\.\. \[--dry-run\]\]$' "it shows the synopsis"
like "$out" '^  --exit-code  exit 12 when settings drift' "and what --exit-code exits"
like "$out" 'PartitionName=P\[:KEY\]' "and the --key forms"

# usage ERROR-REGEX ARGS...: exit EXIT_USAGE and the message, nothing reached
usage() {
	local want=$1 out rc; shift
	out=$("$top_builddir/mdcctl" drift "$@" 2>&1); rc=$?
	if [ "$rc" = "$EXIT_USAGE" ] && printf '%s' "$out" | grep -Eq -- "$want"; then
		pass "drift $* -> exit $EXIT_USAGE: $out"
	else
		fail "drift $* -> exit $EXIT_USAGE matching /$want/" "exit $rc" "$out"
	fi
}
usage "--key goes with --adopt" --key MinJobAge
usage "--dry-run goes with --adopt" --dry-run
usage "--exit-code reports drift; it does not go with --adopt" --adopt --exit-code
usage "--key needs a value" --adopt --key
usage "--key 'PartitionName=': use KEY, PartitionName=P\[:KEY\]" --adopt --key PartitionName=
usage "--key 'Bogus=x:y': use KEY" --adopt --key Bogus=x:y
usage "--key 'a:b': use KEY" --adopt --key=a:b
usage "unknown option '--frobnicate'" --frobnicate
usage "unknown argument 'extra'" extra
like "$("$top_builddir/mdcctl" --help 2>&1)" '^  drift  ' "mdcctl --help lists drift"
