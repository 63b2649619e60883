# shellcheck shell=bash
# lab-common.sh - what scripts/slurm-lab and scripts/slurm-lab-hosts
# share, sourced by both (not run on its own): progress and error lines,
# where Slurm's plugins are and where the project's programs are.  The
# sourcing script sets PROG and SELF (its own absolute path) first.
# (bash)

# log MSG: progress on stderr, with the seconds since the script started
T0=$EPOCHREALTIME
log() {
	printf '%s: [%5.2fs] %s\n' "$PROG" \
		"$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" "$*" >&2
}
err() { printf '%s: %s\n' "$PROG" "$*" >&2; }

# plugin_dir: Slurm's plugin directory; with a release root (RROOT, set
# by slurm-lab --release) the root's own, by its path inside the root
plugin_dir() {
	local so
	if [ "${RROOT:-/}" != / ]; then
		so=$(ls "$RROOT"/usr/lib/*/slurm-wlm/auth_munge.so 2>/dev/null | head -1)
		[ -n "$so" ] || { err "no Slurm plugins in $RROOT"; return 1; }
		so=${so#"$RROOT"}
		dirname "$so"
		return 0
	fi
	so=$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | grep '/auth_munge\.so$' | head -1)
	[ -n "$so" ] || so=$(ls /usr/lib/*/slurm-wlm/auth_munge.so /usr/lib*/slurm/auth_munge.so 2>/dev/null | head -1)
	[ -n "$so" ] || { err "cannot find Slurm's plugin dir (apt-get install slurm-wlm-basic-plugins)"; return 1; }
	dirname "$so"
}

# find_prog NAME: the project's program NAME, by its absolute path: in
# $MDC_BUILDDIR (a release lab's wrappers), $top_builddir (the tests), the
# build tree next to the scripts or the source tree, else on PATH
find_prog() {
	local d
	for d in "${MDC_BUILDDIR:-}" "${top_builddir:-}" "$(dirname "$SELF")/../build" \
		"$(dirname "$SELF")/.."; do
		[ -n "$d" ] && [ -x "$d/$1" ] && { echo "$(cd "$d" && pwd)/$1"; return 0; }
	done
	command -v "$1"
}
find_emulator() { find_prog mdc-emulator; }
find_mdcd() { find_prog mdcd; }
