#!/usr/bin/env bash
# lab_release.t - a managed lab of each release in MDC_RELEASES but the
# host's (default 24.11: Debian 13's Slurm, in its root, scripts/release-root)
# driven from this host shell exactly as the 22.05 one: its daemons and
# clients say the release, the project built for it runs in it
# (job_submit/mdc in its slurmctld, spank_mdc in its slurmd, srun and
# sbatch, mdcctl on PATH), a `config set` survives the emulator's
# regeneration and is live, a config its parser refuses (SlurmctldPlugstack,
# which 22.05's parser accepts) is refused with nothing sent, and down,
# also after a failed up, leaves no process and no mount behind.
# Skipped (counted) only when MDC_RELEASES names no release but 22.05; a
# root or build that cannot be made fails the test.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/lab.sh"

RELS=()
for r in ${MDC_RELEASES:-22.05 24.11}; do [ "$r" = 22.05 ] || RELS+=("$r"); done
[ ${#RELS[@]} -gt 0 ] || skip_all "MDC_RELEASES='${MDC_RELEASES:-}' names no release but the host's 22.05"
command -v jq >/dev/null || skip_all "jq is not installed"
lab_need
RR=$top_srcdir/scripts/release-root
export MDC_CONF=$TEST_DIR/mdc.conf MDC_LOCK_DIR=$TEST_DIR
printf 'JobSubmitMode = reject\n' >"$MDC_CONF"
unset MDC_ACCESS_TOKEN VISUAL MDC_JOB_SUBMIT_MODE
PATH0=$PATH
plan $((23 * ${#RELS[@]}))

prove() {
REL=$1

# the root and the project's build for REL (cached; scripts/test made them)
RROOT=$("$RR" path "$REL" 2>"$TEST_DIR/rr.err") ||
	{ diag "$(cat "$TEST_DIR/rr.err")"; echo "Bail out! no Slurm $REL root"; exit 1; }
RB=$("$RR" build "$REL" "$top_srcdir" 2>"$TEST_DIR/rr.err") ||
	{ diag "$(cat "$TEST_DIR/rr.err")"; echo "Bail out! slurm-mdc does not build against Slurm $REL"; exit 1; }
JS_DIR=$RB/plugins/job_submit/.libs
SPANK=$RB/plugins/spank/.libs/spank_mdc.so
CLUSTER=projects/lab/locations/local/modelDevelopmentClusters/lab
PLOG=$TEST_DIR/prolog-$REL.log
PATH=$PATH0

# in_lab DIR: processes in the root that belong to lab DIR (their
# command line or environment names it); other labs may share the root
in_lab() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$RROOT" ] || continue
		grep -qsF -- "$1" "$p/cmdline" "$p/environ" && echo "${p#/proc/} $(cat "$p/comm" 2>/dev/null)"
	done
}

LAB_DIR=$TEST_DIR/lab-$REL
lab_start "$LAB_DIR" --release "$REL" --managed --plugindir "$JS_DIR" --job-submit mdc \
	--plugstack "required $SPANK cluster=$CLUSTER endpoint=http://127.0.0.1:9 log=$PLOG"
log=$LAB_DIR/emu/requests.log
show_on_fail "$log" "$TEST_DIR/err"
npatch() { jq -s '[.[] | select(.method == "PATCH")] | length' "$log"; }
cval() { scontrol show config | sed -n "s/^$1 *= //p"; }
job_done() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }

# the host shell's commands are the release's
is "$(type -P scontrol) $(type -P mdcctl)" "$LAB_DIR/bin/scontrol $LAB_DIR/bin/mdcctl" \
	"after the eval, scontrol and mdcctl on PATH are the lab's wrappers"
like "$(scontrol --version)" "^slurm(-wlm)? $REL\\.[0-9]+\$" "scontrol --version says $REL"
like "$(scontrol show config | sed -n 's/^SLURM_VERSION *= //p')" "^$REL\\.[0-9]+\$" \
	"the live slurmctld is $REL"
like "$(grep '^exec ' "$LAB_DIR/bin/mdcctl")" " ${RB//./\\.}/mdcctl " "mdcctl is the $REL build's"

# the 24.11 plugins in the 24.11 daemons and clients
like "$(cat "$LAB_DIR/log/slurmctld.log")" 'job_submit/mdc: loaded, mode reject' \
	"slurmctld $REL loads the $REL job_submit/mdc"
jid=$(timeout 30 sbatch --parsable -p debug -t 1 -o "$TEST_DIR/job.out" \
	--wrap 'echo "cluster=$MDC_CLUSTER"' 2>"$TEST_DIR/err")
like "$jid" '^[0-9]+$' "sbatch -p debug is accepted"
wait_until 60 job_done "$jid"
is "$(cat "$TEST_DIR/job.out" 2>&1)" "cluster=$CLUSTER" "the batch job ran, with spank_mdc's MDC_CLUSTER"
is "$(timeout 60 srun --mdc-managed-only -p debug -t 1 printenv MDC_CLUSTER 2>>"$TEST_DIR/err")" \
	"$CLUSTER" "srun $REL takes spank_mdc's --mdc-managed-only and runs the task"

# a setting kept through the emulator's regeneration, live in slurmctld
n=$(lab_syncs)
ok "mdcctl config set KillWait=45" mdcctl --yes config set KillWait=45
lab_wait_sync "$n" 60
is "$(cval KillWait)" "45 sec" "KillWait=45 is in the live scontrol show config"
n=$(lab_syncs)
ok "mdcctl config set MessageTimeout=20 (another regeneration)" mdcctl --yes config set MessageTimeout=20
lab_wait_sync "$n" 60
is "$(grep -i '^KillWait=' "$SLURM_CONF")" "KillWait=45" "the regenerated slurm.conf keeps KillWait=45"
is "$(cval KillWait) / $(cval MessageTimeout)" "45 sec / 20 sec" "both are live after the second reload"

# a config the release's own parser refuses (SlurmctldPlugstack: a key
# 22.05's parser knows and 24.11's does not): refused, nothing sent
before=$(npatch)
out=$(mdcctl --yes config set SlurmctldPlugstack=foo 2>&1 </dev/null)
is "$?" 3 "config set SlurmctldPlugstack=foo is refused (exit 3)"
like "$out" "unrecognized key: SlurmctldPlugstack.*nothing was sent" "with the $REL parser's words"
is "$(npatch)" "$before" "no PATCH reached the emulator"
is "$(grep -ci '^SlurmctldPlugstack' "$SLURM_CONF")" 0 "slurm.conf has no SlurmctldPlugstack"

# a value only this release's slurmctld refuses (its parser takes it):
# the sandboxed slurmctld of the release is the verdict, nothing is sent
before=$(npatch)
out=$(mdcctl --yes partition update debug TRESBillingWeights=bogus=1 2>&1 </dev/null)
like "$?:$out" "^3:.*slurmctld: fatal: .*nothing was sent" \
	"a TRESBillingWeights only slurmctld $REL refuses: refused with its fatal line"
is "$(npatch)" "$before" "no PATCH reached the emulator"
# a plugin the release does not ship
out=$(mdcctl --yes config set SelectType=select/cons_res 2>&1 </dev/null)
like "$?:$out" "^3:.*Slurm $REL, the release judged against, ships no select/cons_res plugin" \
	"SelectType=select/cons_res is refused naming $REL"

# down: nothing of the lab is left in the root (so no mount: each mount
# namespace dies with its last process)
ok "slurm-lab down" "$LAB_SCRIPT" down "$LAB_DIR"
is "$(in_lab "$LAB_DIR")" "" "no process of the lab is left in the $REL root"

# a failed up (slurmctld stops on a job_submit plugin it does not have)
# stops what it started
bad=$TEST_DIR/bad-$REL
at_exit "\"\$LAB_SCRIPT\" down '$bad'"
"$LAB_SCRIPT" up "$bad" --release "$REL" --job-submit nosuch --timeout 20 \
	>/dev/null 2>"$TEST_DIR/bad.err"
rc=$?
is "$rc:$(in_lab "$bad")" "1:" "a failed up exits 1 and leaves no process of its lab in the root"
diag "$(grep -m1 'exited' "$TEST_DIR/bad.err")"
}

for r in "${RELS[@]}"; do prove "$r"; done
