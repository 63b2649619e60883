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

# refused CODE REGEX DESCRIPTION -- ARGS...: exit CODE, one stderr line
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

refused 3 "unknown key 'PriorityTyp'.*did you mean 'PriorityType'" "unknown config key, with a suggestion" \
	-- config set PriorityTyp=priority/multifactor
refused 3 "HealthCheckProgram.*refused" "refused key (C10)" -- config set HealthCheckProgram=/bin/true
refused 3 "'Prolog' is refused" "Prolog is refused (use prolog add)" -- config set Prolog=/x
refused 3 "ClusterName.*service-managed" "service-managed key" -- config set ClusterName=x
refused 3 "control characters" "a value with a newline" -- config set "PriorityType=priority/basic
NodeName=evil"
refused 3 "PriorityWeightAge='lots'" "a value of the wrong type" -- config set PriorityWeightAge=lots
refused 2 "expected KEY=VALUE" "set without '='" -- config set PriorityType
refused 2 "unset takes keys" "unset with a value" -- config unset PriorityType=x
refused 3 "unknown key 'Nodes'|partition 'gpu'.*Nodes" "partition key not valid on a partition line" \
	-- partition create gpu --node-pools cpu Nodes=x
refused 3 "'Default' is refused|Default.*default_partition_id|Default" "partition-scope Default (use partition default)" \
	-- partition update cpu Default=YES
refused 2 "give --node-pools" "partition create without pools" -- partition create gpu MaxTime=5
refused 3 "partition id 'a b'" "a partition id with a space" -- partition update "a b" MaxTime=5
refused 3 "unknown key 'Bogus'" "unknown node key" -- nodeset set cpu Bogus=1
refused 3 "label key 'Env'" "label key with capitals" -- labels set Env=prod
refused 3 "label value 'Prod!'" "bad label value" -- labels set env=Prod!
refused 2 "node count '-1'" "negative node count" -- nodepool scale cpu --min -1 --max 2
refused 3 "--min 5 is above --max 2" "min above max" -- nodepool scale cpu --min 5 --max 2
refused 2 "usage: mdcctl nodepool" "scale without --max" -- nodepool scale cpu --min 1
printf 'if then fi\n' >"$TEST_DIR/bad.sh"
refused 3 "bad.sh: bash syntax error, nothing sent" "prolog add of a script bash -n rejects" -- prolog add "$TEST_DIR/bad.sh"
refused 3 "bash syntax error" "epilog replace with one bad script" -- epilog replace "$TEST_DIR/bad.sh"
refused 1 "missing.sh" "prolog add of a missing file" -- prolog add "$TEST_DIR/missing.sh"
refused 2 "give the script's index" "prolog remove of a non-number" -- prolog remove first
refused 2 "update needs FILE and --update-mask" "raw update without a mask" -- update /dev/null
printf '{"labels":{"a":"b"}}' >"$TEST_DIR/l.json"
refused 3 "no_such_field" "raw update with an unknown mask path" -- update "$TEST_DIR/l.json" --update-mask no_such_field
printf '{"labels":' >"$TEST_DIR/broken.json"
refused 3 "invalid JSON" "raw update with broken JSON" -- update "$TEST_DIR/broken.json" --update-mask labels
refused 3 "cluster id" "create with a bad cluster id" \
	-- --cluster projects/proj/locations/us-central1/modelDevelopmentClusters/Bad_Id create "$TEST_DIR/l.json"
refused 3 "refusing to delete .* without --yes" "delete without --yes and no terminal" -- delete
refused 3 "plain http is refused" "plain http to a non-loopback host" -- --endpoint http://example.com describe
refused 3 "expected projects/P/locations/R/modelDevelopmentClusters/C" "malformed cluster name" \
	-- --cluster projects/p/zones/z describe
refused 2 "needs --project and --region" "a short cluster id without project/region" \
	-- --cluster c1 describe
refused 2 "--format 'xml'" "unknown --format" -- --format xml describe
refused 2 "unknown command 'frobnicate'" "unknown command" -- frobnicate
refused 2 "--update-mode 'FAST'" "unknown --update-mode" -- --update-mode FAST labels set a=b
refused 2 "--timeout 'soon'" "bad --timeout" -- --timeout soon describe
MDC_CONF=$TEST_DIR/mdc.conf
printf 'Endpoint = %s\nColour = blue\n' "$EMU_URL" >"$MDC_CONF"
refused 3 "mdc.conf:2: unknown key 'Colour'" "config file with an unknown key" -- describe
unset MDC_CONF

# refusals found only on the fresh state: a GET, never a PATCH
err=$("$top_builddir/mdcctl" partition delete cpu 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_INVAL" "deleting the default partition exits 3"
like "$err" "default" "and says it is the default"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "only the GET went out"
: >"$EMU_LOG"
err=$("$top_builddir/mdcctl" partition update nope MaxTime=5 2>&1 >/dev/null); rc=$?
isnt "$rc" 0 "updating a missing partition fails"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "and sends no PATCH"
: >"$EMU_LOG"
err=$("$top_builddir/mdcctl" prolog remove 3 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_INVAL" "removing a script that is not there exits 3"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "and sends no PATCH"
: >"$EMU_LOG"
printf '{"labels":{"a":"b"},"orchestrator_spec":{"slurm_spec":{"config":{"HealthCheckInterval":"5"}}}}' >"$TEST_DIR/hc.json"
err=$("$top_builddir/mdcctl" update "$TEST_DIR/hc.json" --update-mask labels,orchestrator_spec.slurm_spec.config 2>&1 >/dev/null); rc=$?
is "$rc" "$EXIT_REFUSED" "raw update with a refused key exits 3"
like "$err" "HealthCheckInterval" "and names the key"
is "$(jq -r .method "$EMU_LOG" | sort -u)" "GET" "raw update validated on the fresh state sent no PATCH"
done_testing
