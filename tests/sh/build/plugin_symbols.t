#!/usr/bin/env bash
# The plugins export exactly the symbols Slurm looks up (version scripts
# keep libmdc local), declare Slurm's version, link no libslurm and no
# json-c, and leave every Slurm symbol to the host process.
. "$top_srcdir/tests/lib/tap.sh"

js=$top_builddir/plugins/job_submit/.libs/job_submit_mdc.so
sp=$top_builddir/plugins/spank/.libs/spank_mdc.so
command -v nm >/dev/null || skip_all "nm is not installed (binutils)"
plan 13

defined() { nm -D --defined-only "$1" | awk '{print $3}' | sort; }
printf '%s\n' fini init job_modify job_submit plugin_name plugin_type plugin_version \
	>"$TEST_DIR/js.want"
defined "$js" >"$TEST_DIR/js.got"
files_eq "job_submit_mdc.so exports only the job_submit plugin symbols" \
	"$TEST_DIR/js.got" "$TEST_DIR/js.want"
printf '%s\n' plugin_name plugin_type plugin_version slurm_spank_exit slurm_spank_init \
	slurm_spank_init_post_opt slurm_spank_job_epilog slurm_spank_job_prolog \
	slurm_spank_local_user_init slurm_spank_task_init slurm_spank_user_init \
	spank_plugin_version | sort >"$TEST_DIR/sp.want"
defined "$sp" >"$TEST_DIR/sp.got"
files_eq "spank_mdc.so exports only the SPANK symbols" "$TEST_DIR/sp.got" "$TEST_DIR/sp.want"

for so in "$js" "$sp"; do
	n=$(basename "$so")
	needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	unlike "$needed" 'libslurm' "$n links no libslurm (needs: $needed)"
	unlike "$needed" 'libcurl|libyaml|libmicrohttpd' "$n pulls in no HTTP/YAML library"
	# every library is mapped by each sbatch/srun/salloc (bench/sbatch.sh)
	unlike "$needed" 'json' "$n pulls in no JSON library"
	undef=$(nm -D --undefined-only "$so" | awk '{print $2}')
	# lib/base/ and lib/slurmconf/ are json-c-free: only `mdcctl conf dump` needs json-c
	unlike "$needed $undef" 'libjson-c|(^| )json_' "$n needs no json-c (needs: $needed)"
	like "$undef" '^slurm_(info|error)$' "$n leaves Slurm's logging to the host"
done

# plugin_version is SLURM_VERSION_NUMBER of the installed headers, read
# from the loaded plugin the way slurmctld does (libslurmfull first, global)
ver=$(sed -n 's/^#define SLURM_VERSION_NUMBER *//p' /usr/include/slurm/slurm_version.h)
full=$(dirname "$(ls /usr/lib/*/slurm-wlm/libslurmfull.so /usr/lib*/slurm/libslurmfull.so 2>/dev/null | head -1)")/libslurmfull.so
got=$(python3 - "$full" "$js" <<'PY' 2>&1
import ctypes, sys
ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)
lib = ctypes.CDLL(sys.argv[2])
print(hex(ctypes.c_uint32.in_dll(lib, "plugin_version").value),
      ctypes.c_char_p(ctypes.addressof(ctypes.c_char.in_dll(lib, "plugin_type"))).value.decode())
PY
)
is "$got" "$(printf '0x%x' "$ver") job_submit/mdc" "job_submit_mdc.so declares job_submit/mdc for Slurm $ver"
