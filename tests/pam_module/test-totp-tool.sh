#!/bin/bash
# postern-totp end to end: interoperability with oathtool (secret from
# `enroll --format uri`, SHA1/SHA256/SHA512, 6 and 8 digits) through the
# real module, enrolment with and without the app's code, --force, revoke,
# recovery codes, import-oath, -C with paths.state/paths.incoming, and the
# refusals — each with its audit record and what is (not) left on disk.
# Args: MODULE HARNESS POSTERN_TOTP SYSLOG_CAPTURE PRIVATE_ETC PAM_WRAPPER_LIB
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
pam_test_start PTTOOL_INSIDE "$@"
for u in pttotp1 pttotp2 pttotp3 pttotp4 pttotp5 pttotp6 pttotp7 pttotp8 pttotp9 pttotp10 pttotp11 pttotp13; do acct_user "$u" -M -N; done
KEY_A="publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT"
mkdir -m 0755 "$T/state"
S=$T/state/totp
service pttotp "store=$S"
totp() { "$TOTP" -S "$S" "$@"; }
uri_secret() { sed -n 's/.*[?&]secret=\([A-Z2-7]*\).*/\1/p'; }

# --- root only
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TOTP" -S "$S" list 2>&1)
rc=$?
check "refuses to run unless root" test "$rc" != 0
check "says why" bash -c "echo '$out' | grep -q 'must be run as root'"
check "non-root run created nothing" test ! -e "$S"

# --- interoperability with oathtool
for alg in SHA1 SHA256 SHA512; do
	for digits in 6 8; do
		uri=$(totp enroll --no-verify --force --format uri --algorithm "$alg" --digits "$digits" pttotp1)
		lines=$(echo "$uri" | wc -l)
		secret=$(echo "$uri" | uri_secret)
		code=$(oathtool --totp="${alg,,}" -d "$digits" -b "$secret")
		auth pttotp pttotp1 "$code" "$KEY_A"
		check "$alg/$digits digits: --format uri prints one line with algorithm and digits" \
			bash -c "[ $lines = 1 ] && echo '$uri' | grep -q 'algorithm=$alg&digits=$digits&period=30'"
		check "$alg/$digits digits: oathtool's code is accepted" test "$result" = PAM_SUCCESS
	done
done
check "every --force kept the replaced record in .attic" test "$(ls "$S/.attic" | grep -c '^pttotp1\.replaced\.')" = 5
check "secret length: 64 bytes for SHA512 (base32 in the record)" \
	test "$(secret_of "$S/pttotp1" | tr -d = | wc -c)" = 104

# --- enrolment that waits for the app's code
# bash unsets NAME_PID once it reaps a coprocess that ended, which may be
# before `wait` (set -u then stops the test): keep the pid at once.
coproc ENR { "$CAPTURE" "$T/enroll.log" -- "$TOTP" -S "$S" enroll --format uri pttotp2 2>/dev/null; }
enr_pid=$ENR_PID
read -r -t 10 uri <&"${ENR[0]}"
# The very code typed at enrolment is replayed: computing a fresh one could
# cross a 30-second step and log in legitimately.
enrol_code=$(oathtool --totp -b "$(echo "$uri" | uri_secret)")
echo "$enrol_code" >&"${ENR[1]}"
wait "$enr_pid"
check "enroll accepts the app's current code" test $? = 0
check "enroll is audited with the admin and source" grep -q "event=totp_enroll user=pttotp2 .*admin=.* replaced=no source=enroll" "$T/enroll.log"
auth pttotp pttotp2 "$enrol_code" "$KEY_A"
check "the code typed at enrolment cannot be replayed at login" test "$result" = PAM_AUTH_ERR
printf '000000\n000001\n000002\n' | totp enroll pttotp3 >/dev/null 2>"$T/err3"
check "three wrong codes: enroll fails" test $? != 0
check "wrong codes: nothing was written" test ! -e "$S/pttotp3"
check "wrong codes: the message says what to do" grep -q 'nothing was written (check the device clock' "$T/err3"
# Only the app's code answers the question: a recovery code typed there was
# taken as a login, so one of the ten codes just shown never worked.
coproc ENR8 { "$TOTP" -S "$S" enroll pttotp8 2>/dev/null; }
enr8_pid=$ENR8_PID
codes8=()
while [ ${#codes8[@]} -lt 10 ] && read -r -t 10 line8 <&"${ENR8[0]}"; do
	case $line8 in
	otpauth://*) uri8=$line8 ;;
	[a-z2-7][a-z2-7][a-z2-7][a-z2-7]-*) codes8+=("$line8") ;;
	esac
done
echo "${codes8[0]}" >&"${ENR8[1]}"
oathtool --totp -b "$(echo "$uri8" | uri_secret)" >&"${ENR8[1]}"
wait "$enr8_pid"
check "enroll: a recovery code is not the app's code, the app's code then is" test $? = 0
check "enroll: all 10 recovery codes still stored" test "$(grep -c '^recovery ' "$S/pttotp8")" = 10
auth pttotp pttotp8 "${codes8[0]}" "$KEY_A"
check "enroll: the recovery code typed at the code prompt still logs in" test "$result" = PAM_SUCCESS

# --- existing enrolments are kept
before=$(sha256sum <"$S/pttotp2")
totp enroll --no-verify pttotp2 >/dev/null 2>"$T/err"
check "enroll of an enrolled user without --force: refused" test $? != 0
check "refusal says --force keeps the old record" grep -q 'already enrolled (use --force' "$T/err"
check "refused enroll: record unchanged" test "$(sha256sum <"$S/pttotp2")" = "$before"

# --- concurrent enrolments of one user: one wins, the others are told
# (they used to overwrite each other: several "enrolled", each with its own
# secret, and only the last rename's record left, none of the others kept)
for u in pttotp9 pttotp10 pttotp11; do
	for i in 1 2 3 4 5 6 7 8; do
		( totp enroll --no-verify --format uri "$u" >"$T/conc.$u.$i" 2>"$T/conc.$u.$i.err"
		  echo $? >"$T/conc.$u.$i.rc" ) &
	done
	wait
	won=$(grep -l '^0$' "$T"/conc.$u.*.rc | sed 's/\.rc$//')
	check "$u: 8 concurrent enrolments, exactly one succeeds" test "$(echo "$won" | grep -c .)" = 1
	check "$u: the other 7 are told it is already enrolled" \
		test "$(cat "$T"/conc.$u.*.err | grep -c 'already enrolled (use --force')" = 7
	check "$u: the stored secret is the one the winner printed" \
		test "$(uri_secret <"$won")" = "$(secret_of "$S/$u" | tr -d =)"
done
check "concurrent enrolments left no temporary file in the store" \
	test "$(ls -A "$S" | grep -c '^\.')" = 1

# --- status never shows the secret
totp status pttotp2 >"$T/status"
check "status: enrolled, algorithm, keys" bash -c "grep -q '^enrolled: yes' '$T/status' && grep -q '^algorithm: SHA1' '$T/status' && grep -q '^bound keys: 0' '$T/status'"
check "status: no secret" bash -c "! grep -q '$(secret_of "$S/pttotp2" | cut -c1-16)' '$T/status'"
check "list names the enrolled users" bash -c "'$TOTP' -S '$S' list | grep -q '^pttotp2 SHA1 6'"

# --- recovery codes
totp enroll --no-verify pttotp4 >"$T/e4"
old=$(sed -n 's/^  \([a-z2-7]\{4\}-.*\)$/\1/p' "$T/e4" | head -1)
"$CAPTURE" "$T/rc.log" -- "$TOTP" -S "$S" recovery-codes pttotp4 >"$T/rc4"
new=$(sed -n 's/^  \([a-z2-7]\{4\}-.*\)$/\1/p' "$T/rc4" | head -1)
check "recovery-codes prints 10 new codes" test "$(grep -c '^  [a-z2-7]\{4\}-' "$T/rc4")" = 10
check "recovery-codes is audited" grep -q "event=totp_recovery_reset user=pttotp4 .*count=10" "$T/rc.log"
auth pttotp pttotp4 "$old" "$KEY_A"
check "an old recovery code no longer works" test "$result" = PAM_AUTH_ERR
auth pttotp pttotp4 "$new" "$KEY_A"
check "a new recovery code works" test "$result" = PAM_SUCCESS

# --- revoke moves the record aside
"$CAPTURE" "$T/rv.log" -- "$TOTP" -S "$S" revoke pttotp4 >/dev/null
check "revoke: record gone from the store" test ! -e "$S/pttotp4"
check "revoke: record kept in .attic" bash -c "ls '$S/.attic' | grep -q '^pttotp4\.revoked\.'"
check "revoke is audited with where it went" grep -q "event=totp_revoke user=pttotp4 .*kept=.attic/pttotp4.revoked." "$T/rv.log"
check "status after revoke: not enrolled" bash -c "'$TOTP' -S '$S' status pttotp4 | grep -q '^enrolled: no'"
auth pttotp pttotp4 "$new" "$KEY_A"
check "revoked user cannot log in" test "$result" = PAM_AUTH_ERR

# --- --bind-key refuses what is not a plain key
echo "command=\"/bin/sh\" ${KEY_A#publickey }" >"$T/opts.pub"
totp enroll --no-verify --bind-key "$T/opts.pub" pttotp5 >/dev/null 2>"$T/err"
check "--bind-key with authorized_keys options: refused" bash -c "grep -q 'options are not accepted' '$T/err' && test ! -e '$S/pttotp5'"

# --- import-oath
cat >"$T/users.oath" <<USERS
# pam_oath users file
HOTP/T30 pttotp5 - 3132333435363738393031323334353637383930
HOTP/T60/8 pttotp6 - 3132333435363738393031323334353637383931
HOTP pttotp7 - 3132333435363738393031323334353637383930
HOTP/T30 pttotp7 1234 3132333435363738393031323334353637383930
HOTP/T30 ptnosuchuser - 3132333435363738393031323334353637383930
HOTP/T30 pttotp2 - 3132333435363738393031323334353637383930
HOTP/T30 pttotp7 - 31323334
USERS
totp import-oath "$T/users.oath" >"$T/imp.out" 2>"$T/imp.err"
check "import-oath exits non-zero when lines were skipped" test $? != 0
check "import-oath imported the T30 and T60/8 users" bash -c "test -f '$S/pttotp5' && test -f '$S/pttotp6' && grep -q '^period 60' '$S/pttotp6'"
check "import-oath: event-based HOTP skipped with the reason" grep -q 'users.oath:4: skipped: event-based HOTP' "$T/imp.err"
check "import-oath: PIN skipped with the reason" grep -q 'users.oath:5: skipped: has a password/PIN' "$T/imp.err"
check "import-oath: unknown user skipped" grep -q 'users.oath:6: skipped: no such user' "$T/imp.err"
check "import-oath: enrolled user skipped, record kept" bash -c "grep -q 'users.oath:7: skipped: already enrolled' '$T/imp.err' && test \"\$(sha256sum <'$S/pttotp2')\" = '$before'"
check "import-oath: short secret skipped" grep -q 'users.oath:8: skipped: secret is shorter than 80 bits' "$T/imp.err"
check "import-oath: skipped users got no record" test ! -e "$S/pttotp7"
auth pttotp pttotp5 "$(oathtool --totp 3132333435363738393031323334353637383930)" "$KEY_A"
check "imported HOTP/T30 user logs in with the same codes as before" test "$result" = PAM_SUCCESS
auth pttotp pttotp6 "$(oathtool --totp -s 60 -d 8 3132333435363738393031323334353637383931)" "$KEY_A"
check "imported HOTP/T60/8 user logs in with the same codes as before" test "$result" = PAM_SUCCESS
# A NUL byte would end the text early: the lines after it were neither
# imported nor reported, and the run said everything went well.
printf 'HOTP/T30 pttotp7 - 3132333435363738393031323334353637383930\n# x\0y\nHOTP/T30 pttotp3 - 3132333435363738393031323334353637383930\n' >"$T/nul.oath"
totp import-oath "$T/nul.oath" >"$T/nul.out" 2>"$T/nul.err"
check "import-oath: a file with a NUL byte is refused" test $? != 0
check "import-oath: the NUL byte's line is named" grep -q 'nul.oath:2: a NUL byte' "$T/nul.err"
check "import-oath: nothing imported from a file with a NUL byte" \
	bash -c "test ! -e '$S/pttotp7' && test ! -e '$S/pttotp3'"

# --- the issuer is shown by the app: no control character, C1 included
totp enroll --no-verify --issuer "$(printf 'ACME\xc2\x9b2J')" pttotp13 >/dev/null 2>"$T/iss.err"
rc=$?
check "enroll --issuer with a C1 control (CSI): refused, nothing written" \
	bash -c "test $rc = 1 && grep -q -- '--issuer must be' '$T/iss.err' && test ! -e '$S/pttotp13'"

# --- GNU option order: options may follow the operand, -- ends options
totp enroll pttotp13 --no-verify --format uri >"$T/gnu.out" 2>"$T/gnu.err"
check "enroll USER --no-verify --format uri: options after the operand are accepted" \
	bash -c "test -f '$S/pttotp13' && grep -q '^otpauth://' '$T/gnu.out' && ! test -s '$T/gnu.err'"
totp status -- pttotp13 >"$T/gnu.status"
check "status -- USER: -- ends options" grep -q '^enrolled: yes' "$T/gnu.status"
totp enroll --no-verify -- -x >/dev/null 2>"$T/gnu.err"
check "enroll -- -x: -x is taken as the user name, not an option" grep -q "'-x' is not a valid user name" "$T/gnu.err"
totp status -x >/dev/null 2>"$T/gnu.err"
rc=$?
check "status -x: an unknown option is refused" bash -c "test $rc = 1 && grep -q 'status: see postern-totp --help' '$T/gnu.err'"
cp "$T/nul.oath" "$T/-nul.oath"
(cd "$T" && "$TOTP" -S "$S" import-oath -- -nul.oath) >/dev/null 2>"$T/gnu.err"
check "import-oath -- -FILE: the file named -nul.oath is read" grep -q -- '-nul.oath:2: a NUL byte' "$T/gnu.err"
(cd "$T" && "$TOTP" -S "$S" import-oath -nul.oath) >/dev/null 2>"$T/gnu.err"
check "import-oath -FILE without --: refused as an unknown option" grep -q 'import-oath: see postern-totp --help' "$T/gnu.err"
check "import-oath with -- and without: nothing imported" \
	bash -c "test ! -e '$S/pttotp7' && test ! -e '$S/pttotp3'"

# --- -C: paths.state and paths.incoming from the policy file
mkdir -m 0755 "$T/cstate"
mkdir -m 0711 "$T/incoming"
printf 'paths:\n  state: %s\n  incoming: %s\n' "$T/cstate" "$T/incoming" >"$T/postern.yaml"
"$TOTP" -C "$T/postern.yaml" enroll --no-verify --format uri pttotp7 >/dev/null
check "-C: record under paths.state/totp" test "$(stat -c %U:%a "$T/cstate/totp/pttotp7" 2>/dev/null)" = root:600
check "-C: store dir root 0700" test "$(stat -c %U:%a "$T/cstate/totp")" = root:700
check "-C: incoming dir made, the user's, 0700" test "$(stat -c %U:%a "$T/incoming/pttotp7" 2>/dev/null)" = pttotp7:700
printf 'paths:\n  stat: %s\n' "$T/cstate" >"$T/bad.yaml"
"$TOTP" -C "$T/bad.yaml" list 2>"$T/err"
check "-C with a broken config: refused with FILE:LINE:COL" bash -c "test \$? != 0; grep -q 'bad.yaml:2:' '$T/err'"

# --- audit records that cannot be delivered (docs/AUDIT.md): changes are
# refused and change nothing; status goes on with one warning.
nolog() { local mode=$1; shift; "$CAPTURE" --log="$mode" "$T/nolog.log" -- "$TOTP" "$@"; }
useradd -M -N pttotp12
ls -A "$S" >"$T/store.before"
for mode in absent refusing; do
	nolog "$mode" -S "$S" enroll --no-verify pttotp12 >"$T/out" 2>"$T/err"
	rc=$?
	check "no syslog ($mode /dev/log): enroll refused" bash -c "test $rc = 1 && grep -q 'enroll: refused, nothing changed: audit records cannot be delivered' '$T/err' && grep -q 'start rsyslog or systemd-journald' '$T/err'"
	check "no syslog ($mode): no record, nothing printed" bash -c "test ! -e '$S/pttotp12' && ! test -s '$T/out'"
	for cmd in "revoke pttotp2" "unlock pttotp2" "recovery-codes pttotp2" "import-oath $T/users.oath"; do
		# shellcheck disable=SC2086 # cmd is two words on purpose
		nolog "$mode" -S "$S" $cmd >/dev/null 2>"$T/err"
		rc=$?
		check "no syslog ($mode): ${cmd%% *} refused" test "$rc" = 1
		check "no syslog ($mode): ${cmd%% *} says why" grep -q "${cmd%% *}: refused, nothing changed" "$T/err"
	done
	check "no syslog ($mode): the store is as it was" bash -c "ls -A '$S' | cmp -s - '$T/store.before'"
	nolog "$mode" -S "$S" status pttotp2 >"$T/out" 2>"$T/err"
	check "no syslog ($mode): status goes on, with one warning" bash -c "grep -q '^enrolled: yes' '$T/out' && test \"\$(grep -c 'warning: audit records cannot be delivered' '$T/err')\" = 1"
done
check "no syslog: nothing reached a log" test ! -s "$T/nolog.log"
printf 'paths:\n  state: %s\n  incoming: %s\naudit:\n  on_failure: continue\n' "$T/cstate" "$T/incoming" >"$T/cont.yaml"
nolog absent -C "$T/cont.yaml" enroll --no-verify --format uri pttotp12 >/dev/null 2>"$T/err"
check "audit.on_failure: continue: enroll goes on, with a warning" bash -c "test -e '$T/cstate/totp/pttotp12' && grep -q 'warning: audit records cannot be delivered' '$T/err'"
finish
