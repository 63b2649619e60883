#!/usr/bin/env bash
# At the clients: hostile keys, values, ids, labels and
# node counts are refused by mdcctl and mdc-scontrol with the shared rules
# before anything is written: the emulator's request log shows no write
# and the real scontrol is never run with them.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

command -v jq >/dev/null || skip_all "jq is not installed"
command -v scontrol >/dev/null || skip_all "scontrol is not installed (scripts/install-deps)"
emu_mdcctl_env c1
: >"$EMU_LOG"
# slurm.conf for mdc-scontrol's node -> pool mapping
emu_slurm_conf

writes() { grep -Ec '"method":"(PATCH|POST|DELETE)"' "$EMU_LOG"; }

# refused PROG REGEX DESCRIPTION -- ARGS...: a non-zero exit, one error
# line matching REGEX, no write to the API and no live scontrol run
refused() {
	local prog=$1 re=$2 desc=$3 err rc
	shift 4
	err=$("$top_builddir/$prog" "$@" 2>&1 >/dev/null </dev/null); rc=$?
	if [ "$rc" != 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
	   printf '%s' "$err" | grep -Eq -- "$re" && [ "$(writes)" = 0 ] &&
	   [ ! -s "$TEST_DIR/scontrol.log" ]; then
		pass "$desc"
	else
		fail "$desc" "args: $*" "exit $rc" "stderr: $err" "$(cat "$EMU_LOG" "$TEST_DIR/scontrol.log")"
	fi
	: >"$EMU_LOG"
	: >"$TEST_DIR/scontrol.log"
}

plan 30

# --- keys that run programs (16.1) ---------------------------------------------------------
for k in PrologSlurmctld EpilogSlurmctld TaskProlog TaskEpilog SrunProlog SrunEpilog \
	UnkillableStepProgram ResvProlog Include JobCompLoc; do
	refused mdcctl "'$k' is (service-managed and )?refused" "mdcctl config set $k=/tmp/x.sh refused, nothing sent" \
		-- config set "$k=/tmp/x.sh"
done
refused mdcctl "'JobSubmitPlugins' is service-managed and refused" "mdcctl config set JobSubmitPlugins refused" \
	-- config set JobSubmitPlugins=lua
refused mdcctl "'RequeueExitHold' is refused" "RequeueExitHold is refused like RequeueExit" \
	-- config set RequeueExitHold=1
refused mdcctl "'PrologSlurmctld' is refused" "an unset of a refused key is refused too" \
	-- config unset PrologSlurmctld

# --- values --------------------------------------------------------------------------------
refused mdcctl "not valid UTF-8" "invalid UTF-8 in a value is refused before sending" \
	-- config set "SchedulerParameters=a$(printf '\377')b"
refused mdcctl "double quote that slurm.conf cannot express" "a value slurm.conf cannot quote is refused" \
	-- config set 'SchedulerParameters="bf_continue"'
refused mdcctl "invalid value PriorityWeightAge='1e400'" "1e400 is not a number of Slurm's" \
	-- config set PriorityWeightAge=1e400
refused mdcctl "control characters" "a C1 control character (terminal escape) is refused" \
	-- config set "SchedulerParameters=a$(printf '\302\233')2J"

# --- ids, labels, node counts (16.3) ----------------------------------------------------------
# (an id that starts with '-' is an option to getopt_long: refused as one)
for id in '*' '../../../../etc/passwd' '-o/tmp/x' 'DEFAULT'; do
	refused mdcctl "invalid partition id|unknown option '-o'" "mdcctl refuses the partition id '$id'" \
		-- partition create "$id" --node-pools cpu
done
for id in '*' '../../../../etc/passwd' '--help' '-o/tmp/x'; do
	refused mdc-scontrol "invalid partition id" "mdc-scontrol refuses the partition id '$id'" \
		-- create "PartitionName=$id" Nodes=cpu-[0-1]
done
refused mdc-scontrol "not valid UTF-8" "mdc-scontrol refuses invalid UTF-8 in a value" \
	-- update PartitionName=cpu "Alternate=$(printf '\377')"
refused mdc-scontrol "'TaskProlog' is refused|unknown key|not valid in partition scope" \
	"mdc-scontrol refuses a program key on a partition" -- update PartitionName=cpu TaskProlog=/tmp/x.sh
refused mdcctl "label key 'Env'" "an upper-case label key is refused" -- labels set Env=x
refused mdcctl "label value" "a label value with invalid UTF-8 is refused" -- labels set "env=$(printf '\377')"
refused mdcctl "node counts need 0 <= min <= max <= 10000" "100000 nodes in a pool are refused" \
	-- nodepool scale cpu --min 0 --max 100000
