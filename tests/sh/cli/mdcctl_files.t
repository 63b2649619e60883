#!/usr/bin/env bash
# Hostile files are bounded.  slurm.conf, its includes and
# mdc.conf are read only when they are regular files: a FIFO (which used to
# hang the tools) or a symlink to /dev/zero (which grew to gigabytes) is
# refused at once, and an include tree that fans out stops at a cap on the
# number of files instead of running for minutes.  Each command runs under
# timeout(1) so a regression fails instead of hanging the suite.
. "$top_srcdir/tests/lib/tap.sh"

plan 13
M() { timeout 60 "$top_builddir/mdcctl" "$@"; }
export MDC_CONF=/dev/null
unset MDC_ENDPOINT MDC_CLUSTER

mkfifo "$TEST_DIR/fifo.conf"
ln -s /dev/zero "$TEST_DIR/zero.conf"

err=$(M conf check "$TEST_DIR/fifo.conf" 2>&1); rc=$?
ok "conf check of a FIFO fails at once (no hang)" test "$rc" != 0 -a "$rc" != 124
like "$err" "a FIFO, not a regular file" "... naming what it is"
err=$(M conf check "$TEST_DIR/zero.conf" 2>&1); rc=$?
ok "conf check of a symlink to /dev/zero fails at once" test "$rc" != 0 -a "$rc" != 124
like "$err" "character device" "... naming what it is"

# an Include naming a FIFO
printf 'ClusterName=lab\nInclude %s\n' "$TEST_DIR/fifo.conf" >"$TEST_DIR/inc.conf"
err=$(M conf check "$TEST_DIR/inc.conf" 2>&1); rc=$?
ok "an included FIFO fails at once" test "$rc" != 0 -a "$rc" != 124
like "$err" "regular file" "... saying it is not a regular file"

# fan-out 3 at depth 12: 3^12 inclusions if nothing stopped it
for i in $(seq 0 11); do
	printf 'Include f%d.conf\nInclude f%d.conf\nInclude f%d.conf\n' $((i + 1)) $((i + 1)) $((i + 1)) \
		>"$TEST_DIR/f$i.conf"
done
printf 'PartitionName=p Nodes=vm\n' >"$TEST_DIR/f12.conf"
printf 'ClusterName=lab\nNodeName=vm CPUs=1\nInclude f0.conf\n' >"$TEST_DIR/tree.conf"
err=$(M conf check "$TEST_DIR/tree.conf" 2>&1); rc=$?
ok "an include tree that fans out stops (no minutes-long run)" test "$rc" != 0 -a "$rc" != 124
like "$err" "more than [0-9]+ included files in all" "... at the cap on included files"
# a modest tree is fine (two partitions: the same file twice would define
# one partition twice, which slurmctld's start-up refuses)
printf 'PartitionName=p%d Nodes=vm\n' 1 >"$TEST_DIR/g1.conf"
printf 'PartitionName=p%d Nodes=vm\n' 2 >"$TEST_DIR/g2.conf"
printf 'ClusterName=lab\nSlurmctldHost=vm\nNodeName=vm CPUs=1\nInclude g1.conf\nInclude g2.conf\n' >"$TEST_DIR/small.conf"
ok "a small include tree still loads" M conf check "$TEST_DIR/small.conf"

# mdc.conf
err=$(MDC_CONF=$TEST_DIR/fifo.conf MDC_ENDPOINT=http://127.0.0.1:9 M describe 2>&1); rc=$?
is "$rc" "$EXIT_IO" "a FIFO as mdc.conf is refused at once (exit $EXIT_IO)"
like "$err" "FIFO" "... naming what it is"
err=$(MDC_CONF=$TEST_DIR/zero.conf MDC_ENDPOINT=http://127.0.0.1:9 M describe 2>&1); rc=$?
is "$rc" "$EXIT_IO" "a symlink to /dev/zero as mdc.conf is refused"
ok "MDC_CONF=/dev/null still means 'no config file'" sh -c \
	'MDC_CONF=/dev/null "$0" --endpoint http://127.0.0.1:9 conf check "$1"' "$top_builddir/mdcctl" "$TEST_DIR/small.conf"
