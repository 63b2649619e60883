#!/usr/bin/env bash
# Bad input never sends a request and gives one clear line with the
# documented exit code.  The request log proves nothing (or only a GET)
# went out.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

emu_up
emu_create_cluster c1 >/dev/null || skip_all "cannot create the test cluster"
export MDC_ENDPOINT=$EMU_URL MDC_CONF=/dev/null MDC_LOCK_DIR=$TEST_DIR
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
: >"$EMU_LOG"

# refused CODE REGEX DESCRIPTION -- ARGS...: exit CODE (an $EXIT_* of tap.sh), one stderr line
# matching REGEX, no request at all
refused() {
	local code=$1 re=$2 desc=$3 err rc n
	shift 4
	err=$("$top_builddir/mdcctl" "$@" 2>&1 >/dev/null </dev/null); rc=$?
	n=$(wc -l <"$EMU_LOG")
	if [ "$rc" = "$code" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   printf '%s' "$err" | grep -Eq -- "$re" && [ "$n" = 0 ]; then
		pass "$desc"
	else
		fail "$desc" "args: $*" "exit $rc (want $code)" "stderr: $err" "requests: $n" "$(cat "$EMU_LOG")"
	fi
	: >"$EMU_LOG"
}

refused "$EXIT_INVAL" "unknown key 'PriorityTyp'.*did you mean 'PriorityType'" "unknown config key, with a suggestion" \
	-- config set PriorityTyp=priority/multifactor
refused "$EXIT_REFUSED" "HealthCheckProgram.*refused" "refused key (C10)" -- config set HealthCheckProgram=/bin/true
refused "$EXIT_REFUSED" "'Prolog' is refused" "Prolog is refused (use prolog add)" -- config set Prolog=/x
refused "$EXIT_REFUSED" "ClusterName.*service-managed" "service-managed key" -- config set ClusterName=x
refused "$EXIT_REFUSED" "control characters" "a value with a newline" -- config set "PriorityType=priority/basic
NodeName=evil"
refused "$EXIT_INVAL" "PriorityWeightAge='lots'" "a value of the wrong type" -- config set PriorityWeightAge=lots
refused "$EXIT_USAGE" "expected KEY=VALUE" "set without '='" -- config set PriorityType
refused "$EXIT_USAGE" "unset takes keys" "unset with a value" -- config unset PriorityType=x
refused "$EXIT_REFUSED" "unknown key 'Nodes'|partition 'gpu'.*Nodes" "partition key not valid on a partition line" \
	-- partition create gpu --node-pools cpu Nodes=x
refused "$EXIT_REFUSED" "'Default' is refused|Default.*default_partition_id|Default" "partition-scope Default (use partition default)" \
	-- partition update cpu Default=YES
refused "$EXIT_USAGE" "give --node-pools" "partition create without pools" -- partition create gpu MaxTime=5
refused "$EXIT_INVAL" "partition id 'a b'" "a partition id with a space" -- partition update "a b" MaxTime=5
refused "$EXIT_INVAL" "unknown key 'Bogus'" "unknown node key" -- nodeset set cpu Bogus=1
refused "$EXIT_INVAL" "label key 'Env'" "label key with capitals" -- labels set Env=prod
refused "$EXIT_INVAL" "label value 'Prod!'" "bad label value" -- labels set env=Prod!
refused "$EXIT_USAGE" "node count '-1'" "negative node count" -- nodepool scale cpu --min -1 --max 2
refused "$EXIT_INVAL" "--min 5 is above --max 2" "min above max" -- nodepool scale cpu --min 5 --max 2
refused "$EXIT_USAGE" "usage: mdcctl nodepool" "scale with neither count" -- nodepool scale cpu
printf 'if then fi\n' >"$TEST_DIR/bad.sh"
refused "$EXIT_INVAL" "bad.sh: bash syntax error, nothing sent" "prolog add of a script bash -n rejects" -- prolog add "$TEST_DIR/bad.sh"
refused "$EXIT_INVAL" "bash syntax error" "epilog replace with one bad script" -- epilog replace "$TEST_DIR/bad.sh"
refused "$EXIT_IO" "cannot open '$TEST_DIR/none.sh': No such file" "a script that does not exist is named as such" \
	-- prolog add "$TEST_DIR/none.sh"
refused "$EXIT_INVAL" "bad.sh: bash syntax error, nothing sent: line 1: syntax error" \
	"bash's complaint names the line" -- epilog add "$TEST_DIR/bad.sh"
refused "$EXIT_IO" "missing.sh" "prolog add of a missing file" -- prolog add "$TEST_DIR/missing.sh"
refused "$EXIT_USAGE" "give the script's index" "prolog remove of a non-number" -- prolog remove first
refused "$EXIT_USAGE" "update needs FILE and --update-mask" "raw update without a mask" -- update /dev/null
printf '{"labels":{"a":"b"}}' >"$TEST_DIR/l.json"
refused "$EXIT_INVAL" "no_such_field" "raw update with an unknown mask path" -- update "$TEST_DIR/l.json" --update-mask no_such_field
printf '{"labels":' >"$TEST_DIR/broken.json"
refused "$EXIT_PARSE" "invalid JSON" "raw update with broken JSON" -- update "$TEST_DIR/broken.json" --update-mask labels
refused "$EXIT_INVAL" "cluster id" "create with a bad cluster id" \
	-- --cluster projects/proj/locations/us-central1/modelDevelopmentClusters/Bad_Id create "$TEST_DIR/l.json"
refused "$EXIT_REFUSED" "refusing to delete .* without --yes" "delete without --yes and no terminal" -- delete
refused "$EXIT_REFUSED" "plain http is refused" "plain http to a non-loopback host" -- --endpoint http://example.com describe
refused "$EXIT_INVAL" "expected projects/P/locations/R/modelDevelopmentClusters/C" "malformed cluster name" \
	-- --cluster projects/p/zones/z describe
refused "$EXIT_USAGE" "needs --project and --region" "a short cluster id without project/region" \
	-- --cluster c1 describe
refused "$EXIT_USAGE" "--format 'xml'" "unknown --format" -- --format xml describe
refused "$EXIT_USAGE" "unknown command 'frobnicate'" "unknown command" -- frobnicate
refused "$EXIT_USAGE" "--update-mode 'FAST'" "unknown --update-mode" -- --update-mode FAST labels set a=b
refused "$EXIT_USAGE" "--timeout 'soon'" "bad --timeout" -- --timeout soon describe
MDC_CONF=$TEST_DIR/mdc.conf
printf 'Endpoint = %s\nColour = blue\n' "$EMU_URL" >"$MDC_CONF"
refused "$EXIT_INVAL" "mdc.conf:2: unknown key 'Colour'" "config file with an unknown key" -- describe
unset MDC_CONF

# refusals found only on the fresh state: a GET, never a PATCH
err=$("$top_builddir/mdcctl" partition delete cpu 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "deleting the default partition is refused (exit $EXIT_REFUSED)"
like "$err" "default" "and says it is the default"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "only the GET went out"
: >"$EMU_LOG"
err=$("$top_builddir/mdcctl" partition update nope MaxTime=5 2>&1 >/dev/null); rc=$?
isnt "$rc" 0 "updating a missing partition fails"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "and sends no PATCH"
: >"$EMU_LOG"
err=$("$top_builddir/mdcctl" prolog remove 3 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "removing a script that is not there is refused (exit $EXIT_REFUSED)"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "and sends no PATCH"
: >"$EMU_LOG"
printf '{"labels":{"a":"b"},"orchestrator_spec":{"slurm_spec":{"config":{"HealthCheckInterval":"5"}}}}' >"$TEST_DIR/hc.json"
err=$("$top_builddir/mdcctl" update "$TEST_DIR/hc.json" --update-mask labels,orchestrator_spec.slurm_spec.config 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "raw update with a refused key exits $EXIT_REFUSED"
like "$err" "HealthCheckInterval" "and names the key"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "raw update validated on the fresh state sent no PATCH"
done_testing
