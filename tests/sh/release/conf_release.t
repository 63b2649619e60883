#!/usr/bin/env bash
# conf_release.t - the release slurm-mdc judges against: the key and plugin
# table regenerated from each
# release's source equals the committed one; `mdcctl conf check` judges
# against `scontrol --version`, else SlurmRelease in mdc.conf, else the
# build's release, says which, and refuses what that release lacks,
# naming it.  (owner: slurm.conf engine)
. "$top_srcdir/tests/lib/tap.sh"
# our own checks and Slurm's client parse are what is judged here; the
# sandboxed slurmctld start-up is verdict_ctld.t's
export MDC_SLURMCTLD=

D=$TEST_DIR
HDR=$'ClusterName=c1\nSlurmctldHost=ctl(127.0.0.1)\nNodeName=n1 CPUs=1\nPartitionName=p1 Nodes=n1'
mk() { { printf '%s\n' "$HDR"; cat; } > "$D/$1"; }

# check RELEASE FILE: conf check with SlurmRelease = RELEASE (none when
# empty) and no scontrol to ask; sets RC, OUT (stdout), ERR (stderr)
check() {
	local rel=$1 f=$2
	if [ -n "$rel" ]; then printf 'SlurmRelease = %s\n' "$rel" > "$D/mdc.conf"; else : > "$D/mdc.conf"; fi
	OUT=$(cd "$D" && MDC_CONF="$D/mdc.conf" MDC_SCONTROL="$D/no-scontrol" \
		timeout 30 mdcctl conf check "$f" 2>"$D/err"); RC=$?
	ERR=$(cat "$D/err")
}

# --- the generated table is what the sources say ----------------------------
src22=${MDC_SLURM_SRC_22_05:-/work/src/bookworm/src}
src24=${MDC_SLURM_SRC_24_11:-/work/src/trixie/src}
src26=${MDC_SLURM_SRC_26_05:-/work/src/sid/src}
if [ -f "$src22/src/common/read_config.c" ] && [ -f "$src24/src/common/read_config.c" ] &&
   [ -f "$src26/src/common/read_config.c" ]; then
	"$top_srcdir/scripts/gen-slurm-tables" "$src22" "$src24" "$src26" > "$D/tab.c" 2>"$D/gen.err"
	is "$?" 0 "gen-slurm-tables reads the three source trees"
	files_eq "lib/slurmconf/sc_release_tab.c is what gen-slurm-tables writes from the sources" \
		"$D/tab.c" "$top_srcdir/lib/slurmconf/sc_release_tab.c"
	# a tree of another release in a release's place is refused, not mixed in
	"$top_srcdir/scripts/gen-slurm-tables" "$src24" "$src22" "$src26" > /dev/null 2>"$D/gen.err"
	like "$?:$(cat "$D/gen.err")" "^2:gen-slurm-tables: the trees are 24.11, 22.05, 26.05" \
		"gen-slurm-tables refuses trees in the wrong order"
else
	skip "lib/slurmconf/sc_release_tab.c is what gen-slurm-tables writes from the sources" \
		"no Slurm sources (MDC_SLURM_SRC_22_05, _24_11, _26_05)"
	skip "gen-slurm-tables reads the three source trees" "no Slurm sources"
	skip "gen-slurm-tables refuses trees in the wrong order" "no Slurm sources"
fi

# --- select/cons_res: gone in 24.11 ------------------------------------------
printf 'SelectType=select/cons_res\n' | mk consres.conf
check 24.11 consres.conf
is "$RC" "$EXIT_PARSE" "SelectType=select/cons_res with SlurmRelease = 24.11: refused"
like "$OUT" "^judged against Slurm 24.11 \\(SlurmRelease in mdc.conf\\)" \
	"conf check says it judged against 24.11, from mdc.conf"
like "$ERR" "error: SelectType=select/cons_res: Slurm 24.11, the release judged against, ships no select/cons_res plugin \\(Slurm 23.11 replaced it with select/cons_tres; Slurm 22.05 ships it\\)" \
	"the refusal names the release, the replacement and the release that ships it"
check 22.05 consres.conf
is "$RC:$ERR" "0:" "SelectType=select/cons_res with SlurmRelease = 22.05: accepted, no word"
like "$OUT" "^judged against Slurm 22.05 \\(SlurmRelease in mdc.conf\\)" "judged against 22.05"

# --- a plugin no release ships: the target release's own plugins, nearest first
printf 'SelectType=select/bogus\nMCSPlugin=mcs/bogus\nSchedulerType=sched/backfil\n' | mk bogus.conf
check 24.11 bogus.conf
is "$RC" "$EXIT_PARSE" "select/bogus, mcs/bogus, sched/backfil with SlurmRelease = 24.11: refused"
like "$ERR" "error: SelectType=select/bogus: Slurm 24.11, the release judged against, ships no select/bogus plugin, so slurmctld would stop; its select plugins: select/cons_tres, select/linear\$" \
	"select/bogus on 24.11: 24.11's select plugins only"
unlike "$ERR" "cons_res|cray_aries" "select/bogus on 24.11: no plugin 24.11 lacks is suggested"
like "$ERR" "error: MCSPlugin=mcs/bogus: Slurm 24.11, the release judged against, ships no mcs/bogus plugin, so slurmctld would stop; its mcs plugins: mcs/account, mcs/group, mcs/label, mcs/user" \
	"mcs/bogus on 24.11 (loaded after the sandbox's start-up line): refused by the table"
like "$ERR" "SchedulerType=sched/backfil: .*did you mean sched/backfill\\?" "sched/backfil: did you mean sched/backfill"
check 22.05 bogus.conf
like "$ERR" "its select plugins: select/cons_res, select/cons_tres, select/cray_aries, select/linear" \
	"select/bogus on 22.05: 22.05's select plugins"
like "$ERR" "its mcs plugins: mcs/account, mcs/group, mcs/user\$" "mcs/bogus on 22.05: no mcs/label (24.11's)"
# a bare name (the value table's check): the target's plugins, not ours of every release
printf 'SelectType=cons_tre\n' | mk bare.conf
check 24.11 bare.conf
like "$RC:$ERR" "^$EXIT_PARSE:.*SelectType='cons_tre': no such plugin \\(slurmctld would stop\\): did you mean select/cons_tres\\?; Slurm 24.11 ships select/cons_tres, select/linear" \
	"SelectType=cons_tre on 24.11: did you mean select/cons_tres, 24.11's plugins"
unlike "$ERR" "cons_res" "SelectType=cons_tre on 24.11: select/cons_res is not offered"

# --- TLSType: 24.11 and later --------------------------------------------------
printf 'TLSType=tls/none\n' | mk tls.conf
check 22.05 tls.conf
is "$RC" "$EXIT_PARSE" "TLSType with SlurmRelease = 22.05: refused"
like "$ERR" "error: TLSType is not a key of Slurm 22.05, the release judged against: it came with a later release \\(Slurm 24.11 and 26.05 have it\\)" \
	"the refusal names 22.05 and the releases that have TLSType"
check 24.11 tls.conf
unlike "$ERR" "TLSType is not a key" "TLSType with SlurmRelease = 24.11: not refused by our checks"

# --- a key 24.11 reads and ignores ----------------------------------------------
printf 'CoreSpecPlugin=core_spec/none\n' | mk corespec.conf
check 24.11 corespec.conf
like "$RC:$ERR" "^$EXIT_PARSE:.*error: CoreSpecPlugin is defunct in Slurm 24.11, the release judged against" \
	"CoreSpecPlugin on 24.11: refused as defunct there"

# --- no SlurmRelease: the build's release ---------------------------------------
check "" consres.conf
like "$OUT" "^judged against Slurm [0-9][0-9]\\.[0-9][0-9] \\(the release slurm-mdc was built for\\)" \
	"without scontrol or SlurmRelease: the build's release"

# --- a live scontrol wins over mdc.conf -------------------------------------------
printf '#!/bin/sh\n[ "$1" = --version ] && echo "slurm 24.11.5" && exit 0\nexit 1\n' > "$D/scontrol24"
chmod +x "$D/scontrol24"
printf 'SlurmRelease = 22.05\n' > "$D/mdc.conf"
OUT=$(cd "$D" && MDC_CONF="$D/mdc.conf" MDC_SCONTROL="$D/scontrol24" mdcctl conf check consres.conf 2>"$D/err"); RC=$?
like "$OUT" "^judged against Slurm 24.11 \\(scontrol --version\\)" \
	"scontrol --version answering 24.11 wins over SlurmRelease = 22.05"
like "$RC:$(cat "$D/err")" "^$EXIT_PARSE:.*ships no select/cons_res plugin" "and cons_res is refused for it"

# the real scontrol of this machine, configured: its release wins
if command -v scontrol >/dev/null; then
	printf 'ClusterName=c1\nSlurmctldHost=localhost\nNodeName=n1 CPUs=1\nPartitionName=p1 Nodes=n1\n' > "$D/live.conf"
	real=$(SLURM_CONF=$D/live.conf scontrol --version | grep -o '[0-9][0-9]*\.[0-9][0-9]' | head -1)
	printf 'SlurmRelease = 26.05\n' > "$D/mdc.conf"
	OUT=$(cd "$D" && env -u MDC_SCONTROL SLURM_CONF="$D/live.conf" MDC_CONF="$D/mdc.conf" mdcctl conf check consres.conf 2>/dev/null)
	like "$OUT" "^judged against Slurm $real \\(scontrol --version\\)" \
		"the installed scontrol ($(SLURM_CONF=$D/live.conf scontrol --version)) wins over SlurmRelease = 26.05"
else
	skip "the installed scontrol wins over SlurmRelease" "scontrol is not installed"
fi

# --- SlurmRelease itself --------------------------------------------------------
check 23.11 consres.conf
like "$ERR" "mdc.conf:1: SlurmRelease = 23.11: give 22.05, 24.11 or 26.05" \
	"SlurmRelease = 23.11: an error naming the releases known"

# --- issue 24 item 6: a word list's typo gets a did-you-mean ----------------------
printf 'SchedulerParameters=bf_contine,defer\n' | mk sched.conf
check 22.05 sched.conf
is "$RC" 0 "SchedulerParameters=bf_contine: accepted (Slurm ignores words it does not know)"
like "$ERR" "warning: SchedulerParameters='bf_contine,defer': unknown word 'bf_contine' \\(did you mean 'bf_continue'\\?\\)" \
	"with a warning and a did-you-mean"

printf 'SlurmctldParameters=enable_stepmgr\n' | mk ctld.conf
check 24.11 ctld.conf
is "$RC:$ERR" "0:" "SlurmctldParameters=enable_stepmgr on 24.11: a word of 24.11's, no warning"
check 22.05 ctld.conf
like "$RC:$ERR" "^0:.*warning: SlurmctldParameters='enable_stepmgr': unknown word 'enable_stepmgr'.*\\(judged against Slurm 22.05\\)" \
	"on 22.05 it warns, naming the release: 22.05 has no such word"
printf 'SlurmdParameters=config_overide\n' | mk slurmd.conf
check 22.05 slurmd.conf
like "$ERR" "unknown word 'config_overide' \\(did you mean 'config_override'\\?\\)" \
	"SlurmdParameters=config_overide: did you mean config_override"

# --- issue 24 item 7: CryptoType on 22.05 is not "removed" ------------------------
printf 'CryptoType=crypto/munge\n' | mk crypto.conf
check 22.05 crypto.conf
unlike "$ERR" "removed" "CryptoType on 22.05 is not called removed"

# --- config set and plan against the emulator: refused before anything is sent
if ! command -v jq >/dev/null; then
	skip "config set SelectType=select/cons_res on 24.11: refused, nothing sent" "jq is not installed"
else
	. "$top_srcdir/tests/lib/emu.sh"
	emu_up
	emu_create_cluster c1 >/dev/null || { fail "cluster created"; exit 1; }
	export MDC_ENDPOINT=$EMU_URL MDC_CLUSTER=$EMU_PARENT/modelDevelopmentClusters/c1
	export MDC_CONF=$D/mdc.conf MDC_LOCK_DIR=$D MDC_SCONTROL=$D/no-scontrol
	unset MDC_ACCESS_TOKEN
	writes() { jq -c 'select(.method != "GET")' "$EMU_LOG" | wc -l; }
	printf 'SlurmRelease = 24.11\n' > "$MDC_CONF"
	: >"$EMU_LOG"
	err=$(mdcctl --yes config set SelectType=select/cons_res 2>&1 </dev/null); rc=$?
	like "$rc:$err" "^$EXIT_REFUSED:.*SelectType=select/cons_res: Slurm 24.11, the release judged against, ships no select/cons_res plugin" \
		"config set SelectType=select/cons_res with SlurmRelease = 24.11: refused, naming 24.11"
	is "$(writes)" 0 "and nothing was sent"
	mdcctl render --base "$top_srcdir/tests/plan/base.conf" > "$D/live.conf" 2>/dev/null
	export SLURM_CONF=$D/live.conf
	{ cat "$D/live.conf"; echo "SelectType=select/cons_res"; } > "$D/new.conf"
	out=$(mdcctl plan "$D/new.conf" 2>&1); rc=$?
	like "$rc:$out" "^$EXIT_REFUSED:.*ships no select/cons_res plugin" "plan of SelectType=select/cons_res on 24.11: refused"
	like "$out" "judged against Slurm 24.11 \\(SlurmRelease in mdc.conf\\)" "plan says which release it judged against"
	printf 'SlurmRelease = 22.05\n' > "$MDC_CONF"
	out=$(mdcctl plan "$D/new.conf" 2>&1); rc=$?
	like "$rc:$(grep "^Slurm's verdict" <<<"$out")" "^0:Slurm's verdict: accepted" "the same plan on 22.05: accepted"
	like "$out" "judged against Slurm 22.05 \\(SlurmRelease in mdc.conf\\)" "judged against 22.05"
	# SchedulerType waits for a restart on 22.05 only: 24.11's reconfigure
	# execs slurmctld anew and applies it (emu_lab.t proves both on a lab)
	{ cat "$D/live.conf"; echo "SchedulerType=sched/builtin"; } > "$D/sched.conf"
	out=$(mdcctl plan "$D/sched.conf" 2>&1)
	like "$out" "restart needed.*SchedulerType" "plan of SchedulerType on 22.05: restart needed"
	printf 'SlurmRelease = 24.11\n' > "$MDC_CONF"
	out=$(mdcctl plan "$D/sched.conf" 2>&1)
	like "$out" "judged against Slurm 24.11" "plan of SchedulerType judged against 24.11"
	unlike "$out" "restart needed" "plan of SchedulerType on 24.11: no restart needed"
	is "$(writes)" 0 "plan sent nothing"
fi

done_testing
