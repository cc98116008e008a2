# shellcheck shell=bash
# The assertions the end-to-end scripts share (e2e-test.sh, test-sk-login.sh,
# test-invite.sh): each check's output lands in $T/out and $T/err with its
# status in $rc (the script's own run()), and a failed want_* prints why,
# with that output, as TAP diagnostics. Needs lib.sh (the audit capture).

diag() { sed 's/^/# /' >&2; }

rc=0
fail_with() {
	echo "$1" | diag
	{ echo "status $rc; stdout:"; head -c 2000 "$T/out"; echo "stderr:"; head -c 2000 "$T/err"; } | diag
	return 1
}

want_rc() { [ "$rc" = "$1" ] || fail_with "exit status $rc, wanted $1"; }
want_fail() { [ "$rc" != 0 ] || fail_with "exit status 0, wanted a failure"; }
want_out() { grep -qF -- "$1" "$T/out" || fail_with "stdout lacks: $1"; }
want_err() { grep -qF -- "$1" "$T/err" || fail_with "stderr lacks: $1"; }

# want_log MARK PATTERN...: one record after MARK matching every pattern.
want_log() {
	local mark=$1; shift
	e2e_log_wait "$mark" "$@" || { fail_with "no audit record after line $mark with: $*"; return 1; }
}

# Absence cannot be waited for: give in-flight datagrams a moment to land.
want_no_log() {
	local mark=$1 p=$2
	sleep 0.5
	! e2e_log_since "$mark" | grep -qF -- "$p" || fail_with "unexpected record: $p"
}

# The questions ssh put to the askpass ($ASKPASS_LOG) since the case began
# ($ASKED lines in): was the code asked for, or not?
asked() { wc -l <"$ASKPASS_LOG"; }
asked_since() { tail -n "+$((ASKED + 1))" "$ASKPASS_LOG"; }
no_code_asked() {
	! asked_since | grep -q "Verification code" || fail_with "the code was asked for: $(asked_since)"
}
code_asked() {
	asked_since | grep -q "Verification code" || fail_with "the code was not asked for: $(asked_since)"
}
