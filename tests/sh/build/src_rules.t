#!/usr/bin/env bash
# src_rules.t - each rule once, and functions a reader can hold, read from
# the sources: one monotonic clock
# (lib/base/mdc_time.c) and one sleep (mdc_sleep), one number and one
# boolean reader of Slurm values (sc_options.c), and the functions that
# were about 150 lines split into named steps.
. "$top_srcdir/tests/lib/tap.sh"

S=$top_srcdir
# the emulator and mdc-scontrol are being reworked apart (not yet here)
CODE=$(find "$S/lib" "$S/tools" "$S/plugins" -name '*.c' -not -path '*/tools/mdc-emulator/*' \
	-not -path '*/tools/mdc-scontrol/*' 2>/dev/null | sort)
# the files that hold a rule, relative to the tree
where() { grep -l -- "$1" $CODE | sed "s|^$S/||" | sort | tr '\n' ' ' | sed 's/ $//'; }

# the length in lines of function NAME's definition in FILE (0: not
# found); a prototype (its lines end in ';' before any '{') is no definition
fn_len() {
	awk -v name="$2" '
		$0 ~ "^[a-z].*[ *]" name "\\(" { start = FNR; body = 0 }
		start && !body && /;$/ { start = 0 }
		start && /^\{/ { body = 1 }
		start && body && /^}/ { print FNR - start + 1; found = 1; exit }
		END { if (!found) print 0 }' "$1"
}

plan 11
is "$(where 'tv_nsec / 1e9')" "lib/base/mdc_time.c" "one monotonic clock in seconds (mdc_mono)"
is "$(where 'nanosleep(')" "lib/base/mdc_proc.c lib/base/mdc_run.c" "one sleep (mdc_sleep) beside mdc_run's reap poll"
is "$(where '"true", "1"')" "lib/slurmconf/sc_options.c" "one table of Slurm's boolean words (sc_value_bool)"
is "$(grep -c 'strtoull(v, &end, 0)' "$S/lib/slurmconf/sc_options.c")" "1" "the number reader reads base 0, as Slurm's s_p_handle_uint*"
is "$(grep -l 'strtoull(v, &end, 0)' $CODE | sed "s|^$S/||")" "lib/slurmconf/sc_options.c" "and nowhere else"
is "$(grep -n 'if (c->broker)\|is_brokered(c))' "$S/lib/api/mdc_api.c" "$S/lib/api/mdc_update.c" | sed "s|^$S/||")" "" \
	"the client's calls follow its transport table, set when it is made (no branch on the broker)"
# sc_render.c's nodes_has is another engineer's file for now (issue 27)
is "$(grep -l "depth++" $CODE | sed "s|^$S/||" | grep -v '^lib/render/sc_render.c$' | tr '\n' ' ' | sed 's/ $//')" \
	"lib/base/mdc_str.c" "one splitter of bracketed lists (mdc_strv_split_list)"
for f in "lib/base/mdc_run.c mdc_run_finish" "lib/slurmconf/sc_conf.c parse_record" "lib/slurmconf/sc_conf.c parse_text" \
	 "lib/slurmconf/sc_conf.c parse_include"; do
	set -- $f
	n=$(fn_len "$S/$1" "$2")
	ok "$2 ($1) is found and at most 80 lines (it has $n)" test "$n" -gt 0 -a "$n" -le 80
done
