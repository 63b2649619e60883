#!/usr/bin/env bash
# A LockDir on shared storage where the writer lock cannot be
# held (NFS root_squash: root is refused; a read-only mount; a directory
# of another user) makes the write refuse, naming the directory, and never
# falls back to a host-local lock (which would not serialise the other
# hosts' writers).  root_squash is played by root without
# CAP_DAC_OVERRIDE on a root-owned directory it may not write (0555): the
# kernel refuses root's create with EACCES, as the NFS server refuses a
# squashed root's.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root"
for c in setpriv unshare mount jq; do
	command -v "$c" >/dev/null || skip_all "needs $c"
done
setpriv --bounding-set=-dac_override,-dac_read_search true 2>/dev/null || skip_all "setpriv cannot drop capabilities here"
plan 14
export MDC_CONF=/dev/null
unset MDC_ACCESS_TOKEN MDC_TOKEN_FILE MDC_METADATA_URL MDC_BROKER
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
M() { "$top_builddir/mdcctl" "$@"; }
maxtime() { M --format json partition list | jq -r '.[] | select(.id == "p1") | .config.MaxTime // "-"'; }

EMU_LRO_SECONDS=0 emu_up
emu_standard_cluster | jq '.orchestrator_spec.slurm_spec.partitions = [{id: "p1", node_pool_ids: ["cpu"]}] | .orchestrator_spec.slurm_spec.default_partition_id = "p1"' \
	>"$TEST_DIR/c.json"
emu_create_cluster c1 "$TEST_DIR/c.json" >/dev/null || skip_all "cannot create the test cluster"
export MDC_ENDPOINT=$EMU_URL
# the lock file's name for this endpoint and cluster (unique to this test)
mkdir -m 0700 "$TEST_DIR/ok"
ok "a write with a lock directory it can write" env MDC_LOCK_DIR="$TEST_DIR/ok" "$top_builddir/mdcctl" partition update p1 MaxTime=1
NAME=$(ls "$TEST_DIR/ok")
like "$NAME" '^mdc-c1-[0-9a-f]{16}\.lock$' "(its lock file)"
export TMPDIR=$TEST_DIR/tmp
mkdir -p "$TMPDIR"
# host_local: where a fall-back lock would go (the default dirs)
host_local() { [ -n "$NAME" ] || { echo none; return; }; ls /run/lock/"$NAME" "$TMPDIR/$NAME" /tmp/"$NAME" 2>/dev/null | wc -l; }

# root_squash: the shared directory is root's, and root may not write it
S=$TEST_DIR/storage/lock
mkdir -p "$S" && chmod 0755 "$TEST_DIR/storage" && chmod 0555 "$S"
squashed() { setpriv --bounding-set=-dac_override,-dac_read_search,-fowner -- "$@"; }
nok "(root without CAP_DAC_OVERRIDE cannot create a file there)" squashed touch "$S/probe"
err=$(squashed env MDC_LOCK_DIR="$S" "$top_builddir/mdcctl" partition update p1 MaxTime=2 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "root_squash: the write is refused (exit $EXIT_REFUSED)"
like "$err" "lock directory '$S' is not writable by root on this host \(shared storage with root_squash\?\)" \
	"... naming the directory and why"
like "$err" "not taken on a host-local directory" "... saying it takes no host-local lock instead"
unlike "$err" "run the command as root" "... and not telling root to run as root"
is "$(ls -A "$S"):$(host_local):$(maxtime)" ":0:1" "... no lock file anywhere, the cluster unchanged"

# a read-only mount of the shared storage
R=$TEST_DIR/ro
mkdir -m 0755 "$R"
err=$(unshare -m --propagation private sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"' \
	sh "$R" env MDC_LOCK_DIR="$R" "$top_builddir/mdcctl" partition update p1 MaxTime=3 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "a read-only LockDir: the write is refused (exit $EXIT_REFUSED)"
like "$err" "lock directory '$R' is on a read-only file system" "... naming the directory"
is "$(ls -A "$R"):$(host_local):$(maxtime)" ":0:1" "... no lock file anywhere, the cluster unchanged"

# a directory of another uid (an export mapping root to nobody shows so)
O=$TEST_DIR/other
mkdir -m 0755 "$O" && chown 65534 "$O"
err=$(env MDC_LOCK_DIR="$O" "$top_builddir/mdcctl" partition update p1 MaxTime=4 2>&1); rc=$?
is "$rc" "$EXIT_REFUSED" "a LockDir of another uid: the write is refused (exit $EXIT_REFUSED)"
like "$err" "lock directory '$O' belongs to another user \(uid 65534\)" "... naming the directory and its owner"
is "$(ls -A "$O"):$(host_local):$(maxtime)" ":0:1" "... no lock file anywhere, the cluster unchanged"
