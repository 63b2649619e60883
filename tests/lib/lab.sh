# lab.sh - a real Slurm lab for shell tests (sourced after tap.sh).
# shellcheck shell=bash
#
#   . "$top_srcdir/tests/lib/tap.sh"
#   . "$top_srcdir/tests/lib/lab.sh"
#   lab_up [--managed] [slurm-lab up options...]   # before plan
#   lab_mdc_env [options]     # lab_up --managed and the mdc tools' set-up
#   ... SLURM_CONF (and MDC_ENDPOINT, MDC_CLUSTER, MDC_TOKEN_FILE) are exported ...
#   lab_down                                      # optional: at_exit does it
#   lab_start DIR [options]   # another lab in DIR (several labs per test)
#   lab_need                  # only the skip checks (root, Slurm installed)
#   lab_curl ARGS...          # curl the managed lab's emulator with its token
#   scontrol show ...         # the real one, read again across a reconfigure
#
# A managed lab's emulator applies every change to slurm.conf with
# `slurm-lab reload|restart`, which count themselves in run/sync.count:
#   n=$(lab_syncs); <PATCH ...>; lab_wait_sync "$n"   # until it is applied
#
# lab_up skips the whole test (skip_all) when not root or when Slurm or
# munge is not installed, starts the lab in "$TEST_DIR/lab" (LAB_DIR),
# registers its shutdown with at_exit (runs even when the test fails) and
# its daemon logs with show_on_fail.  If the lab cannot start, the test
# bails out with slurm-lab's error and the daemons' log tails.

LAB_SCRIPT=${LAB_SCRIPT:-$top_srcdir/scripts/slurm-lab}

# MDC_LAB_RELEASE=24.11 (tests/sh/release/release_proofs.t): the same test against
# another Slurm release.  Its labs run that release (slurm-lab --release),
# and top_builddir becomes a directory of wrappers that run the project's
# build for that release in its root (scripts/release-root), with the
# build's plugins beside them, so a test's "$top_builddir/mdcctl" and
# "$top_builddir/plugins/..." are that release's.
LAB_RELEASE_OPTS=()
if [ -n "${MDC_LAB_RELEASE:-}" ] && [ "$MDC_LAB_RELEASE" != 22.05 ]; then
	lab_rel_build=$("$top_srcdir/scripts/release-root" builddir "$MDC_LAB_RELEASE" "$top_srcdir") &&
		[ -x "$lab_rel_build/mdcctl" ] || {
		echo "Bail out! no slurm-mdc build for Slurm $MDC_LAB_RELEASE (scripts/release-root build $MDC_LAB_RELEASE $top_srcdir)"
		exit 1
	}
	lab_rel_bin=$TEST_DIR/release-bin
	mkdir -p "$lab_rel_bin"
	for lab_w in mdcctl mdc-scontrol mdcd mdc-emulator mdc-slurmcheck; do
		printf '#!/bin/sh
MDC_RELEASE_BINDS=%q; export MDC_RELEASE_BINDS
MDC_SLURMCHECK_HELPER=%q; export MDC_SLURMCHECK_HELPER
exec %q exec %q -- %q "$@"
' \
			"$TEST_DIR:$top_srcdir:$(dirname "$lab_rel_build")" "$lab_rel_build/mdc-slurmcheck" \
			"$top_srcdir/scripts/release-root" "$MDC_LAB_RELEASE" "$lab_rel_build/$lab_w" \
			>"$lab_rel_bin/$lab_w" && chmod 0755 "$lab_rel_bin/$lab_w"
	done
	ln -sfn "$lab_rel_build/plugins" "$lab_rel_bin/plugins"
	top_builddir=$lab_rel_bin
	export top_builddir MDC_RELEASE_BUILDDIR=$lab_rel_build MDC_BUILDDIR=$lab_rel_bin
	LAB_RELEASE_OPTS=(--release "$MDC_LAB_RELEASE")
	lab_rel_root=$("$top_srcdir/scripts/release-root" path "$MDC_LAB_RELEASE")
fi

# lab_release_user NAME: a user the test made on the host, also in the
# release's root (same uid, gid and groups, by number), where that
# release's daemons (slurmctld's AllowGroups, mdcd's AdminGroups and its
# messages) and setpriv look names up; removed at exit.  Nothing on 22.05.
lab_release_user() {
	local u=$1 g name supp=()
	[ -n "${lab_rel_root:-}" ] || return 0
	for g in $(id -G "$u"); do
		name=$(getent group "$g" | cut -d: -f1) || return 1
		grep -q "^$name:" "$lab_rel_root/etc/group" && continue
		shadow groupadd -R "$lab_rel_root" -g "$g" "$name" || return 1
		at_exit "shadow groupdel -R '$lab_rel_root' '$name'"
	done
	for g in $(id -Gn "$u"); do
		[ "$g" = "$(id -gn "$u")" ] || supp+=("$g")
	done
	shadow useradd -R "$lab_rel_root" -M -N -u "$(id -u "$u")" -g "$(id -g "$u")" \
		${supp[0]:+-G "$(IFS=,; echo "${supp[*]}")"} -s /usr/sbin/nologin "$u" || return 1
	at_exit "shadow userdel -R '$lab_rel_root' '$u'"
}

# lab_setpriv USER [env [-i] [VAR=VAL]...] [timeout SECS] PROG ARGS...: run PROG as USER
# (setpriv: its uid, gid and groups).  PROG one of a release lab's
# wrappers (the lab's Slurm and munge programs, the project's tools) would
# chroot, which only root can: then setpriv runs inside the release's root
# (its names: lab_release_user) with MDC_IN_RELEASE set, so the wrapper
# runs its program there directly.  Any other PROG runs on the host.
lab_setpriv() {
	local u=$1 i=1 k prog
	shift
	[ "${1:-}" = env ] && i=2
	while [ $i -le $# ] && { [ "${!i}" = -i ] || [[ "${!i}" == *=* ]]; }; do i=$((i + 1)); done
	# (timeout DURATION PROG...: PROG is the one)
	k=$i
	[ "${!k:-}" = timeout ] && k=$((k + 2))
	prog=$(command -v -- "${!k:-}" 2>/dev/null)
	if [ -z "${lab_rel_root:-}" ] ||
		{ [[ "$prog" != "$lab_rel_bin/"* ]] && [[ "$prog" != "${LAB_DIR:-/nonexistent}/bin/"* ]]; }; then
		setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups "$@"
		return
	fi
	if [ "$1" != env ]; then set -- env "$@"; i=$((i + 1)); fi
	MDC_RELEASE_BINDS="$TEST_DIR:$top_srcdir:$(dirname "$lab_rel_build")" \
		"$top_srcdir/scripts/release-root" exec "$MDC_LAB_RELEASE" -- \
		setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
		"${@:1:i-1}" MDC_IN_RELEASE="$MDC_LAB_RELEASE" "${@:i}"
}
# mdc-emulator for --managed labs is looked up in the build tree first
export MDC_BUILDDIR=${MDC_BUILDDIR:-$top_builddir}
# a batch job without -o writes slurm-JOBID.out where sbatch ran, the
# build directory (make distcheck's distcleancheck finds them); no test
# reads them, and /dev/null is writable by any user a test submits as
export SBATCH_OUTPUT=${SBATCH_OUTPUT:-/dev/null}

# lab_need: skip the test unless this machine can run a lab
lab_need() {
	local c
	[ "$(id -u)" = 0 ] || skip_all "a Slurm lab needs root"
	for c in munged slurmctld slurmd scontrol srun sbatch; do
		command -v "$c" >/dev/null 2>&1 ||
			skip_all "'$c' is not installed (scripts/install-deps)"
	done
}

# lab_start DIR [options]: start a lab in DIR, eval its exports into this
# shell, stop it at exit.  Bails out (exit 1) if it does not come up.
lab_start() {
	local dir=$1 out rc
	shift
	lab_need
	case " $* " in
		*" --managed "*)
			[ -x "$MDC_BUILDDIR/mdc-emulator" ] || command -v mdc-emulator >/dev/null ||
				skip_all "mdc-emulator is not built" ;;
	esac
	at_exit "\"\$LAB_SCRIPT\" down '$dir'"
	show_on_fail "$dir/log/slurmctld.log" "$dir/log/slurmd.log" \
		"$dir/log/munged.log" "$dir/log/emulator.log"
	out=$("$LAB_SCRIPT" up "$dir" "${LAB_RELEASE_OPTS[@]}" "$@" 2>"$TEST_DIR/lab-up.err")
	rc=$?
	if [ "$rc" != 0 ]; then
		diag "slurm-lab up $dir $* failed (exit $rc):"
		diag "$(cat "$TEST_DIR/lab-up.err")"
		echo "Bail out! slurm-lab up failed"
		exit 1
	fi
	eval "$out"
}

lab_up() {
	LAB_DIR=$TEST_DIR/lab
	lab_start "$LAB_DIR" "$@"
}

# lab_mdc_env [slurm-lab up options]: the managed lab of the suites that
# drive it with the mdc tools (they need jq): MDCCTL and MS (mdc-scontrol)
# from the build tree, an empty mdc.conf of the test's own, the host name,
# and the emulator's request log (log, shown on failure).  Before plan.
lab_mdc_env() {
	command -v jq >/dev/null || skip_all "jq is not installed"
	lab_up --managed "$@"
	MDCCTL=$top_builddir/mdcctl
	MS=$top_builddir/mdc-scontrol
	export MDC_CONF=$TEST_DIR/mdc.conf
	: >"$MDC_CONF"
	host=$(hostname -s)
	log=$LAB_DIR/emu/requests.log
	show_on_fail "$log"
}

# shadow CMD...: run a user or group tool (useradd, groupadd, userdel),
# trying again a bounded number of times while another one (a parallel
# test) holds the lock of /etc/passwd.
shadow() {
	local i
	for ((i = 0; i < 50; i++)); do
		"$@" 2>"$TEST_DIR/shadow.err" && return 0
		grep -qi 'lock' "$TEST_DIR/shadow.err" || break
		sleep 0.1
	done
	cat "$TEST_DIR/shadow.err" >&2
	return 1
}

# scontrol ARGS...: the real scontrol; a `show` that fails with what
# slurmctld answers while it reconfigures (a managed lab's emulator makes
# it reconfigure after every write) is asked again after 0.2, 0.4, 0.8 s,
# as mdc_live does for our own tools.  A test reads a value here; the
# reconfigure window is not what it tests (of 1500 reads during 200
# reconfigures, 6 failed so: "Zero Bytes were transmitted or received",
# "Unexpected missing socket error").  Anything else fails at once.
scontrol() {
	local err rc d
	[ "$1" = show ] || { command scontrol "$@"; return; }
	for d in 0.2 0.4 0.8 -; do
		# stdout straight through, stderr kept to read
		{ err=$(command scontrol "$@" 2>&1 1>&3 3>&-); } 3>&1
		rc=$?
		[ "$rc" = 0 ] || [ "$d" = - ] && break
		grep -qE 'Zero Bytes were transmitted|Unexpected missing socket error|Protocol authentication error|Socket timed out' \
			<<<"$err" || break
		sleep "$d"
	done
	[ -z "$err" ] || printf '%s\n' "$err" >&2
	return "$rc"
}

lab_down() {
	"$LAB_SCRIPT" down "$LAB_DIR" 2>/dev/null
}

# lab_syncs: how many reloads/restarts the lab has done so far
lab_syncs() {
	local n
	read -r n _ 2>/dev/null <"$LAB_DIR/run/sync.count" || n=0
	echo "${n:-0}"
}

# lab_wait_sync N [SECONDS]: wait until a reload/restart after the N-th
# one has finished (default 60 s); false on timeout
lab_wait_sync() {
	local n=$1 t=${2:-60} i
	for ((i = 0; i < t * 10; i++)); do
		[ "$(lab_syncs)" -gt "$n" ] && return 0
		sleep 0.1
	done
	return 1
}

# lab_curl ARGS...: curl -sS with the managed lab emulator's token, read
# from MDC_TOKEN_FILE and handed to curl through a pipe (never in argv)
lab_curl() {
	curl -sS -H @<(printf 'Authorization: Bearer %s\n' "$(<"$MDC_TOKEN_FILE")") "$@"
}
