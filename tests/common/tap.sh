# shellcheck shell=bash
# TAP for every shell test, bash or sh (meson runs them with protocol
# 'tap'): numbered "ok"/"not ok" lines, '# ' diagnostics and the plan.
# Source it; it must never print anything else on stdout, which meson parses.
#
# $n is the number of the last test line printed and $failed is 1 once one
# said "not ok" (a test that prints its plan first ends with
# `[ "$failed" = 0 ]`; one that counts as it goes ends with finish).
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }

# not_ok DESCRIPTION [DIAGNOSTIC]: the diagnostic follows as '# ' lines.
# A DESCRIPTION of several lines (callers append a command's output) keeps
# its first line; the rest become diagnostics, so TAP never sees raw lines.
not_ok() {
	n=$((n + 1))
	failed=1
	echo "not ok $n - ${1%%
*}"
	case $1 in *'
'*) printf '%s\n' "${1#*
}" | head -c 4000 | sed 's/^/# /' ;; esac
	[ $# -lt 2 ] || printf '%s\n' "$2" | head -c 4000 | sed 's/^/# /'
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds; returns its
# verdict, so that `check ... || show-why` works. With TAP_CHECK_QUIET=1
# COMMAND's output is discarded (the installd tests: their clients chatter,
# and a daemon started there must not hold on to the TAP stream).
check() {
	local what=$1
	shift
	if tap_run "$@"; then ok "$what"; else not_ok "$what"; return 1; fi
}
tap_run() {
	if [ "${TAP_CHECK_QUIET:-0}" = 1 ]; then "$@" >/dev/null 2>&1; else "$@"; fi
}

# result STATUS DESCRIPTION: ok when STATUS (usually $?) is 0.
result() { if [ "$1" = 0 ]; then ok "$2"; else not_ok "$2"; return 1; fi; }

# skip_all REASON: the whole test cannot run here (exits).
skip_all() { echo "1..0 # SKIP $1"; exit 0; }

# finish: the plan, after the last test line, and the exit status.
finish() { echo "1..$n"; exit "$failed"; }
