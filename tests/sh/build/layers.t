#!/usr/bin/env bash
# lib/'s layers: scripts/check-layers passes on the
# tree, and fails, naming the file, on a copy with each kind of violation
# planted: an include that runs back up, a lib file in no folder, json-c in
# the plugins' layers, a plugin reaching above lib/slurmconf/, a new
# include circle, a listed circle whose file lost its mark.
. "$top_srcdir/tests/lib/tap.sh"

command -v python3 >/dev/null || skip_all "python3 is not installed"
C=$top_srcdir/scripts/check-layers
plan 14

out=$("$C" "$top_srcdir" 2>&1); rc=$?
is "$rc" 0 "the tree keeps its layers"
is "$out" "" "and the check says nothing"

# a fresh copy of what the check reads, then one fault
fresh() {
	rm -rf "$TEST_DIR/t"
	mkdir -p "$TEST_DIR/t/mk" "$TEST_DIR/t/doc"
	cp -r "$top_srcdir/lib" "$top_srcdir/plugins" "$TEST_DIR/t/"
	cp "$top_srcdir"/mk/lib-*.am "$TEST_DIR/t/mk/"
	cp "$top_srcdir/doc/architecture.md" "$TEST_DIR/t/doc/"
}
# planted DESCRIPTION PATTERN: the check fails and its output matches
planted() {
	local out rc
	out=$("$C" "$TEST_DIR/t" 2>&1); rc=$?
	is "$rc" 1 "$1: the check fails"
	like "$out" "$2" "$1: and names it"
}

fresh
sed -i 's/^#include "mdc_err.h"/#include "mdc_err.h"\n#include "mdc_json.h"/' "$TEST_DIR/t/lib/base/mdc_buf.c"
planted "base includes json" '^lib/base/mdc_buf.c: includes mdc_json.h from lib/json/, a layer above lib/base/$'

fresh
printf '#include "config.h"\n' >"$TEST_DIR/t/lib/mdc_drift.c"
planted "a file in lib/ itself" '^lib/mdc_drift.c: in no layer folder'

fresh
sed -i 's/^#include "mdc_str.h"/#include "mdc_str.h"\n#include <json-c\/json.h>/' "$TEST_DIR/t/lib/slurmconf/sc_release.c"
planted "json-c in lib/slurmconf" '^lib/slurmconf/sc_release.c: includes json-c/, but lib/slurmconf/ is json-c-free'

fresh
sed -i '0,/^#include "mdc_managed.h"/s//#include "mdc_managed.h"\n#include "mdc_client.h"/' \
	"$TEST_DIR/t/plugins/spank/spank_mdc.c"
planted "a plugin includes the client" '^plugins/spank/spank_mdc.c: includes mdc_client.h from lib/api/'

fresh
# mdc_json.c -> mdc_format.h while mdc_format.c -> mdc_json.h: same layer, a new circle
sed -i 's/^#include "mdc_json.h"/#include "mdc_json.h"\n#include "mdc_format.h"/' "$TEST_DIR/t/lib/json/mdc_json.c"
planted "a new circle" '^include circle mdc_format <-> mdc_json: break it, or list it'

fresh
sed -i '/deliberate unit/d' "$TEST_DIR/t/lib/slurmconf/mdc_managed.c"
planted "a listed unit's file without its mark" '^lib/slurmconf/mdc_managed.c: in the circle mdc_jobs <-> mdc_managed but its top'
