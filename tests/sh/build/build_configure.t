#!/usr/bin/env bash
# The build's own checks: configure stops with one line naming the Debian
# package when a library is missing, finds the installed Slurm's plugin
# directory and version, and install-deps is idempotent.
. "$top_srcdir/tests/lib/tap.sh"

[ -x "$top_srcdir/configure" ] || skip_all "configure not generated (run autoreconf -fi)"
plan 9

# a pkg-config that knows no module: the first library check must stop
mkdir -p "$TEST_DIR/empty" "$TEST_DIR/b1"
out=$(cd "$TEST_DIR/b1" && PKG_CONFIG_LIBDIR=$TEST_DIR/empty PKG_CONFIG_PATH= \
	"$top_srcdir/configure" -q 2>&1); rc=$?
isnt "$rc" 0 "configure fails when libcurl is missing"
last=$(printf '%s\n' "$out" | grep 'error:' | tail -n 1)
like "$last" "error: libcurl not found: apt-get install libcurl4-openssl-dev" \
	"the error names the Debian package to install"
is "$(printf '%s\n' "$out" | grep -c 'error:')" 1 "in one error line"

# the same for json-c when only libcurl is visible
mkdir -p "$TEST_DIR/pc" "$TEST_DIR/b2"
cp "$(pkg-config --variable=pcfiledir libcurl)/libcurl.pc" "$TEST_DIR/pc/"
out=$(cd "$TEST_DIR/b2" && PKG_CONFIG_LIBDIR=$TEST_DIR/pc PKG_CONFIG_PATH= \
	"$top_srcdir/configure" -q 2>&1)
like "$(printf '%s\n' "$out" | grep 'error:')" "json-c >= 0.15 not found: apt-get install libjson-c-dev" \
	"a missing json-c names libjson-c-dev"

# the real build tree: plugin dir and Slurm version as the installed Slurm says
want_dir=$(dirname "$(dpkg -L slurm-wlm-basic-plugins 2>/dev/null | grep '/auth_munge\.so$' | head -n 1)")
got_dir=$(sed -n 's/^#define MDC_SLURM_PLUGINDIR "\(.*\)"$/\1/p' "$top_builddir/config.h")
if "$top_builddir/config.status" --config | grep -q -- '--with-slurm-plugindir'; then
	# make distcheck configures with its own plugin dir (Makefile.am)
	skip "--with-slurm-plugindir defaults to the installed Slurm's plugin dir" \
		"this build was configured with an explicit --with-slurm-plugindir"
else
	is "$got_dir" "$want_dir" "--with-slurm-plugindir defaults to the installed Slurm's plugin dir"
fi
vn=$(sed -n 's/^#define SLURM_VERSION_NUMBER 0x\([0-9a-fA-F]*\).*/\1/p' /usr/include/slurm/slurm_version.h)
want_v=$((16#${vn:0:2})).$((16#${vn:2:2})).$((16#${vn:4:2}))
is "$(sed -n 's/^#define MDC_SLURM_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")" "$want_v" \
	"SLURM_VERSION_NUMBER read from slurm/slurm_version.h"
like "$(grep -E '^MDC_CFLAGS = ' "$top_builddir/Makefile")" "-Wall -Wextra .*-Werror" \
	"the tree builds with -Wall -Wextra -Werror"

# install-deps: a second run finds everything and changes nothing
if [ "$(id -u)" = 0 ]; then
	out=$("$top_srcdir/scripts/install-deps" 2>&1); rc=$?
	is "$rc" 0 "install-deps exits 0 when run again"
	like "$out" "^install-deps: all [0-9]+ packages present$" "and installs nothing"
else
	skip "install-deps exits 0 when run again" "needs root"
	skip "and installs nothing" "needs root"
fi
