#!/bin/sh
# build.sh SRCDIR BUILDDIR OUT [TARGET] - build a libFuzzer target with
# clang: sc_fuzz (the slurm.conf parser, the default) or json_fuzz (the
# parse that reuses kept list elements); used by `make fuzz` and
# tests/sh/cli/sc_fuzz.t, json_fuzz.t.  Exit 77 when clang or its libFuzzer
# runtime is missing.  (owner: slurm.conf engine)
set -e
src=$1 build=$2 out=$3 target=${4:-sc_fuzz}
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null 2>&1 || { echo "build.sh: $CLANG not found" >&2; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sc_fuzz_probe.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void) d; (void) n; return 0; }\n' > "$tmp/p.c"
"$CLANG" -fsanitize=fuzzer "$tmp/p.c" -o "$tmp/p" >/dev/null 2>&1 ||
	{ echo "build.sh: $CLANG has no libFuzzer runtime (-fsanitize=fuzzer)" >&2; exit 77; }
mkdir -p "$(dirname "$out")"
if [ "$target" = json_fuzz ]; then
	# shellcheck disable=SC2046
	exec "$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$build" -I"$src/lib/base" -I"$src/lib/slurmconf" -I"$src/lib/json" -I"$src/lib/render" $(pkg-config --cflags json-c) \
		"$src/fuzz/json_fuzz.c" "$src/lib/json/mdc_json.c" "$src/lib/base/mdc_str.c" \
		"$src/lib/base/mdc_buf.c" "$src/lib/base/mdc_err.c" \
		$(pkg-config --libs json-c) -o "$out"
fi
# shellcheck disable=SC2046
"$CLANG" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$build" -I"$src/lib/base" -I"$src/lib/slurmconf" -I"$src/lib/json" -I"$src/lib/render" $(pkg-config --cflags json-c) \
	"$src/fuzz/sc_fuzz.c" "$src/lib/slurmconf/sc_conf.c" "$src/lib/slurmconf/sc_options.c" \
	"$src/lib/render/sc_dump.c" "$src/lib/render/sc_translate.c" "$src/lib/json/mdc_intent.c" "$src/lib/json/mdc_json.c" \
	"$src/lib/base/mdc_str.c" "$src/lib/base/mdc_hash.c" "$src/lib/base/mdc_buf.c" \
	"$src/lib/base/mdc_err.c" \
	$(pkg-config --libs json-c) -o "$out"
