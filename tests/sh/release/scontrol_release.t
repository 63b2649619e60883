#!/usr/bin/env bash
# mdc-scontrol reads the keys of a partition or node update as the target
# release's scontrol does: its key chains are generated
# from each release's source (scripts/gen-slurm-tables --scontrol writes
# tools/mdc-scontrol/scargs_release_tab.c) and chosen like every check's
# release (the live scontrol --version, else SlurmRelease in mdc.conf).
# The oracle is each release's real scontrol: 22.05 on the host, 24.11 and
# 26.05 in their roots (scripts/release-root), each asked about WORD=1 with
# no slurmctld: scontrol refuses an unknown key ("Update of this parameter
# is not supported") before it contacts slurmctld.  mdc-scontrol runs with
# that scontrol as its real one (MDC_SCONTROL), so the live --version picks
# the table.  The same for the update command's entities (SuspendExcNodes=
# and the like, 24.11 on).  A release whose root is not built is skipped
# (counted).
. "$top_srcdir/tests/lib/tap.sh"

[ -x "$top_builddir/mdc-scontrol" ] || skip_all "mdc-scontrol is not built"
command -v scontrol >/dev/null || skip_all "scontrol is not installed (scripts/install-deps)"
RELS=(22.05 24.11 26.05)
plan $((2 + 3 + ${#RELS[@]} * 3))

D=$TEST_DIR
MS=$top_builddir/mdc-scontrol
RR=$top_srcdir/scripts/release-root

# --- the generated table is what the generator writes from the sources
src22=${MDC_SLURM_SRC_22_05:-/work/src/bookworm/src}
src24=${MDC_SLURM_SRC_24_11:-/work/src/trixie/src}
src26=${MDC_SLURM_SRC_26_05:-/work/src/sid/src}
if [ -f "$src22/src/scontrol/update_part.c" ] && [ -f "$src24/src/scontrol/update_part.c" ] &&
   [ -f "$src26/src/scontrol/update_part.c" ]; then
	"$top_srcdir/scripts/gen-slurm-tables" --scontrol "$src22" "$src24" "$src26" >"$D/tab.c" 2>"$D/gen.err"
	is "$?:$(cat "$D/gen.err")" "0:" "gen-slurm-tables --scontrol reads the three scontrol sources"
	files_eq "tools/mdc-scontrol/scargs_release_tab.c is what gen-slurm-tables --scontrol writes" \
		"$D/tab.c" "$top_srcdir/tools/mdc-scontrol/scargs_release_tab.c"
else
	skip "gen-slurm-tables --scontrol reads the three scontrol sources" "no Slurm sources"
	skip "tools/mdc-scontrol/scargs_release_tab.c is what gen-slurm-tables --scontrol writes" "no Slurm sources"
fi

# a slurm.conf only for parsing: nothing listens on its port
port=$(free_port)
cat >"$D/slurm.conf" <<EOF
ClusterName=t
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
MessageTimeout=2
NodeName=cpu-[0-1] CPUs=1 State=FUTURE
PartitionName=cpu Nodes=cpu-[0-1] Default=YES State=UP
EOF
export SLURM_CONF=$D/slurm.conf
export MDC_CONF=$D/mdc.conf	# no config file of the machine's
: >"$MDC_CONF"
unset MDC_CLUSTER	# mdc-scontrol stops after reading the words: nothing is sent

# wrapper REL: a scontrol that is release REL's real one
wrapper() {
	local w=$D/scontrol-$1
	if [ "$1" = 22.05 ]; then
		printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v scontrol)" >"$w"
	else
		printf '#!/bin/sh\nexec %s exec %s -- scontrol "$@"\n' "$RR" "$1" >"$w"
	fi
	chmod +x "$w"
	echo "$w"
}
# root_ready REL: its root has a scontrol (never built here: minutes)
root_ready() {
	[ "$1" = 22.05 ] && return 0
	[ "$(id -u)" = 0 ] || return 1
	local r
	r=$("$RR" path "$1" 2>/dev/null) && [ -x "$r/usr/bin/scontrol" ]
}

# --- which release: live scontrol first, then SlurmRelease in mdc.conf
out=$(MDC_SCONTROL=$(wrapper 22.05) "$MS" -Q update PartitionName=cpu Po=yes 2>&1)
like "$out" "unknown key 'Po': scontrol 22.05 does not update it \\(scontrol 24.11 reads it as PowerDownOnIdle, 26.05 as PowerDownOnIdle\\)" \
	"the live 22.05: Po= refused, naming the release and what the others read"
printf 'SlurmRelease = 24.11\n' >"$D/mdc24.conf"
printf '#!/bin/sh\nexit 1\n' >"$D/noscontrol"; chmod +x "$D/noscontrol"
out=$(MDC_CONF=$D/mdc24.conf MDC_SCONTROL=$D/noscontrol "$MS" -Q update PartitionName=cpu Po=yes 2>&1)
unlike "$out" "unknown key" "no live scontrol, SlurmRelease = 24.11: Po= is 24.11's PowerDownOnIdle"
out=$(MDC_CONF=$D/mdc24.conf MDC_SCONTROL=$(wrapper 22.05) "$MS" -Q update PartitionName=cpu Po=yes 2>&1)
like "$out" "scontrol 22.05 does not update it" "a live 22.05 scontrol wins over SlurmRelease = 24.11"

# takes REL ENT WORD: "WORD(scontrol:X,ours:Y)" when the release's scontrol
# and mdc-scontrol disagree on whether WORD=1 is a key
takes() {
	local rel=$1 ent=$2 w=$3 sc=key ms=key out
	out=$("$D/scontrol-$rel" update "$ent" "$w=1" 2>&1)
	[[ $out == *"not supported"* ]] && sc=no
	out=$(MDC_SCONTROL=$D/scontrol-$rel "$MS" -Q update "$ent" "$w=1" 2>&1)
	[[ $out == *"unknown key"* ]] && ms=no
	[ "$sc" = "$ms" ] || echo "$w(scontrol:$sc,ours:$ms)"
}
# entity REL WORD: the same for the update command's entities (24.11's
# scontrol updates SuspendExcNodes= live; 22.05's has no such entity)
entity() {
	local rel=$1 w=$2 sc=entity ms=none out
	out=$("$D/scontrol-$rel" update "$w" 2>&1)
	[[ $out == *"No valid entity"* ]] && sc=none
	out=$(MDC_SCONTROL=$D/scontrol-$rel "$MS" -Q update "$w" 2>&1)
	[[ $out == *"on the live slurmctld only"* ]] && ms=entity
	[ "$sc" = "$ms" ] || echo "$w(scontrol:$sc,ours:$ms)"
}
export -f takes entity
export D MS
# words some release takes and another refuses, or reads as another key
PART_WORDS=(Po Pow PowerDownOnIdle ExclusiveT ExclusiveTopo Exclusive Exclusiv Ex E
	MaxCPUsPerS MaxCPUsPerSocket MaxCPUsPerNode MaxC MaxT Max T To Top Topology D Pr Pri
	Sh S St QO N LLNX JobD Qx C Pa)
NODE_WORDS=(C Ce Co CertToken CpuBind I In InstanceI InstanceId InstanceT InstanceType R Re
	Res ResumeAfter T To Top Topology W F A Av S NodeA NodeH Gres)
for r in "${RELS[@]}"; do
	if ! root_ready "$r"; then
		skip "Slurm $r: partition keys as its scontrol takes them" "no $r root (scripts/release-root ensure $r)"
		skip "Slurm $r: node keys as its scontrol takes them" "no $r root"
		skip "Slurm $r: update entities as its scontrol takes them" "no $r root"
		continue
	fi
	wrapper "$r" >/dev/null
	bad=$(printf '%s\n' "${PART_WORDS[@]}" |
		xargs -P 4 -I{} bash -c "takes $r PartitionName=cpu {}" | sort | tr '\n' ' ')
	is "$bad" "" "Slurm $r: mdc-scontrol takes exactly the partition keys its scontrol takes"
	bad=$(printf '%s\n' "${NODE_WORDS[@]}" |
		xargs -P 4 -I{} bash -c "takes $r NodeName=cpu-0 {}" | sort | tr '\n' ' ')
	is "$bad" "" "Slurm $r: mdc-scontrol takes exactly the node keys its scontrol takes"
	bad=$(printf '%s\n' SuspendExcNodes=x SuspendExcP=p SuspendExcStates+=DOWN SuspendExc=x \
		SuspendExcNodes-=x |
		xargs -P 4 -I{} bash -c "entity $r {}" | sort | tr '\n' ' ')
	is "$bad" "" "Slurm $r: mdc-scontrol reads the update entities as its scontrol does"
done
