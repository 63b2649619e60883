#!/usr/bin/env bash
# mdcctl(1) documents every command, the exit codes the code returns and
# the environment; the bash completion completes commands, subcommands,
# option values and ids read from the cluster.
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/emu.sh"

man=$top_srcdir/doc/mdcctl.1
comp=$top_srcdir/scripts/mdcctl.bash-completion
cmds=$("$top_builddir/mdcctl" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 && $1 != "Commands:" {print $1}')
[ -n "$cmds" ] || skip_all "mdcctl --help lists no commands"
# the page's text with roff escapes for '-' undone
text=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man")

# has TEXT REGEX DESCRIPTION: like, without dumping the whole page on failure
has() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then pass "$3"; else fail "$3" "no match for /$2/"; fi
}
for c in $cmds; do
	has "$text" "(^|[ .\"])$c( |\"|$)" "mdcctl(1) documents '$c'"
	has "$(cat "$comp")" "(^|[ \"])$c( |\"|$)" "the completion knows '$c'"
done
exit_codes=$(printf '%s\n' "$text" | sed -n '/^\.SH EXIT STATUS/,/^\.SH EXAMPLES/p' | sed -n '/^\.TP/{n;s/^\.B //p}' | tr '\n' ' ')
is "$exit_codes" "0 1 2 3 4 5 6 7 8 9 10 11 12 130 " "EXIT STATUS lists every code the error table uses, and drift --exit-code's 12"
for v in MDC_ENDPOINT MDC_CLUSTER MDC_ACCESS_TOKEN MDC_CONF MDC_TOKEN_FILE MDC_LOCK_DIR MDC_METADATA_URL; do
	has "$text" "$v" "mdcctl(1) documents $v"
done
if command -v groff >/dev/null 2>&1; then
	w=$(groff -t -man -Tutf8 -ww -z "$man" 2>&1)
	is "$w" "" "groff renders mdcctl(1) without warnings"
else
	skip "groff renders mdcctl(1)" "no groff"
fi

# completion: run _mdcctl on a command line, print COMPREPLY sorted
complete_line() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mdcctl; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' \
		_ "$comp" "$@"
}
is "$(complete_line mdcctl par)" "partition " "completes a command"
is "$(complete_line mdcctl --format json partition "")" "create default delete list show unset update " \
	"completes partition subcommands after global options"
is "$(complete_line mdcctl --format "")" "json text " "completes --format values"
is "$(complete_line mdcctl --update-mode U)" "USER_AND_SERVICE USER_ONLY " "completes --update-mode values"
is "$(complete_line mdcctl nodepool scale cpu --m)" "--max --min " "completes a command's own options"
emu_up
emu_create_cluster c1 >/dev/null || skip_all "cannot create the test cluster"
export MDC_ENDPOINT=$EMU_URL MDC_CONF=/dev/null
export MDC_CLUSTER=projects/proj/locations/us-central1/modelDevelopmentClusters/c1
is "$(complete_line mdcctl nodepool show "")" "cpu login " "completes node pool ids from the cluster"
is "$(complete_line mdcctl partition update "")" "cpu " "completes partition ids from the cluster"
done_testing
