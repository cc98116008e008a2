#!/bin/bash
# pam_postern.so under pam_wrapper with real records written by postern-totp:
# each case asserts the PAM answer, whether the prompt was shown, the audit
# record, and what the store looks like afterwards.
# Args: MODULE HARNESS POSTERN_TOTP SYSLOG_CAPTURE PRIVATE_ETC PAM_WRAPPER_LIB
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
pam_test_start PTPAM_INSIDE "$@"
for u in ptpam1 ptpam2 ptpam3 ptpam4 ptpam5 ptpam6 ptpam7 ptpam8 ptpam9; do acct_user "$u" -M -N; done

KEY_A="publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT"
FPR_A="SHA256:+a5W+os5Q50s5Xf8hZ9lqvA59535ggFeZ3lx4O46I30"
KEY_B="publickey ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQDpVSZ/pgxKVpLg5HCX0qHg2UEdimWbLq3E2ViK7cetOc3S5OeGB3FW64TTyifueWkVF58mH/7thpj5VqGutxVKfUXpzHSTTFuZEyFA81OEMQkScO5PSIDaMeZX39Lhx7d3TQvUWqOuat+o0Zao9kMUchFJiDNAd3RHRiIF5VlNE0+gYJAx4F54SDmBcOtoFZr5S4uWqQ8cran0SOIF+1KNaRLQGm5R8koq5ssy9YxCIe8aKmBtUwDDx6B2YQ/Oo950oWJgWmuASLk6/wGPo9AaRmo6MnRLZGskRW8cF4hKbRNRDxoft8k5Pd3OfkKuf14UudGnrNeAXjdmLhWTCdmX"
S=$T/state/totp
mkdir -m 0755 "$T/state"
service ptpam "store=$S"
service ptpam-lock "store=$S max_failures=3 lockout=600"
# PAM_IGNORE goes on to pam_permit; PAM_SUCCESS "dies" and the stack ends in
# PAM_PERM_DENIED: so PAM_SUCCESS here proves the module said PAM_IGNORE.
printf 'auth [success=die ignore=ignore default=die] %s logins=%s store=%s nullok\nauth required pam_permit.so\n' \
	"$MODULE" "$T/logins" "$S" >"$T/svc/ptpam-nullok"
service ptpam-badopt "store=$S bogus=1"
totp() { "$TOTP" -S "$S" "$@"; }
code_of() { oathtool --totp -b "$(secret_of "$S/$1")"; }

# --- right code, replay, wrong code
totp enroll --no-verify ptpam1 >"$T/enroll1.out"
check "enroll writes a root 0600 record" test "$(stat -c %U:%G:%a "$S/ptpam1")" = root:root:600
code=$(code_of ptpam1)
auth ptpam ptpam1 "$code" "$KEY_A"
check "right code: PAM_SUCCESS after one prompt" test "$result/$prompted" = PAM_SUCCESS/1
check "right code: login_ok with method, key, rhost" logged login_ok user=ptpam1 method=totp "key=$FPR_A" rhost=192.0.2.7 from=192.0.2.7 port=50122
check "right code: the accepted step is recorded" test "$(field_of "$S/ptpam1" last_step)" != 0
check "no code in the log" bash -c "! grep -q -- '$code' '$log'"
auth ptpam ptpam1 "$code" "$KEY_A"
check "replay of the same code: PAM_AUTH_ERR" test "$result" = PAM_AUTH_ERR
check "replay: login_fail reason=replay" logged login_fail reason=replay failures=1
auth ptpam ptpam1 "$(printf %06d $(( (10#$code + 1) % 1000000 )))" "$KEY_A"
check "wrong code: PAM_AUTH_ERR" test "$result" = PAM_AUTH_ERR
check "wrong code (or malformed): counted" test "$(field_of "$S/ptpam1" failures)" = 2
auth ptpam ptpam1 "12345" "$KEY_A"
check "short code: bad_input" logged login_fail reason=bad_input

# --- concurrent replay: N logins with the same code, exactly one gets in
totp enroll --no-verify ptpam2 >/dev/null
code=$(code_of ptpam2)
# Each run gets its own pam_wrapper runtime dir: the wrapper takes the first
# free pam.X name there, and concurrent starts race for the same name.
for i in 1 2 3 4 5 6 7 8; do
	mkdir -p "$T/rt.$i"
	( env PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$T/svc" PAM_WRAPPER_RUNTIME_DIR="$T/rt.$i" \
		LD_PRELOAD="$PAM_WRAPPER_LIB" \
		"$HARNESS" ptpam ptpam2 "$code" "$KEY_A" >"$T/conc.$i" ) &
done
wait
check "8 concurrent logins with one code: exactly one success" \
	test "$(cat "$T"/conc.* | grep -c result=PAM_SUCCESS)" = 1
check "concurrent logins: the other 7 refused" \
	test "$(cat "$T"/conc.* | grep -c result=PAM_AUTH_ERR)" = 7

# --- lockout, then unlock
totp enroll --no-verify ptpam3 >/dev/null
for i in 1 2 3; do auth ptpam-lock ptpam3 000000 "$KEY_A"; done
check "third failure starts a lockout (audited)" logged lockout user=ptpam3 failures=3
check "lockout: locked_until set" test "$(field_of "$S/ptpam3" locked_until)" -gt "$(date +%s)"
code=$(code_of ptpam3)
auth ptpam-lock ptpam3 "$code" "$KEY_A"
check "locked: even the right code fails, after the prompt" test "$result/$prompted" = PAM_AUTH_ERR/1
check "locked: logged as reason=locked" logged login_fail reason=locked
check "status shows the lockout" bash -c "'$TOTP' -S '$S' status ptpam3 | grep -q 'locked until: 2'"
"$CAPTURE" "$T/unlock.log" -- "$TOTP" -S "$S" unlock ptpam3 >/dev/null
check "unlock is audited" grep -q "event=totp_unlock user=ptpam3 .*admin=" "$T/unlock.log"
auth ptpam-lock ptpam3 "$(code_of ptpam3)" "$KEY_A"
check "after unlock the right code works" test "$result" = PAM_SUCCESS

# --- key step
auth ptpam ptpam1 "$(code_of ptpam1)"
check "no SSH_AUTH_INFO_0: refused without a prompt" test "$result/$prompted" = PAM_AUTH_ERR/0
check "no SSH_AUTH_INFO_0: reason=no_key_step" logged login_fail reason=no_key_step
auth ptpam ptpam1 "$(code_of ptpam1)" "password"
check "SSH_AUTH_INFO_0 without publickey: refused, no prompt" test "$result/$prompted" = PAM_AUTH_ERR/0
echo "${KEY_A#publickey } me@host" >"$T/a.pub"
totp enroll --no-verify --bind-key "$T/a.pub" ptpam4 >/dev/null
check "bound key stored as fingerprint" grep -qx "key $FPR_A" "$S/ptpam4"
before=$(sha256sum <"$S/ptpam4")
auth ptpam ptpam4 "$(code_of ptpam4)" "$KEY_B"
check "other key than the bound one: refused without a prompt" test "$result/$prompted" = PAM_AUTH_ERR/0
check "key mismatch: reason=key_not_bound" logged login_fail reason=key_not_bound
check "key mismatch: record untouched" test "$(sha256sum <"$S/ptpam4")" = "$before"
auth ptpam ptpam4 "$(code_of ptpam4)" "$KEY_B
$KEY_A"
check "bound key among several publickey steps: accepted" test "$result" = PAM_SUCCESS

# --- a record larger than the module's 2 KiB stack buffer is written back whole
totp enroll --no-verify --bind-key "$T/a.pub" ptpam7 >/dev/null
big=$T/ptpam7.big
grep -v '^recovery ' "$S/ptpam7" >"$big"
long=$(printf 'a%.0s' $(seq 110))
for i in $(seq -w 1 15); do echo "key SHA256:k${i}$(printf 'B%.0s' $(seq 40))"; done >>"$big"
for i in $(seq 0 9); do echo "recovery \$y\$j9T\$$i$long"; done >>"$big"
cat "$big" >"$S/ptpam7"
check "the big record is over 2 KiB" test "$(stat -c %s "$S/ptpam7")" -gt 2048
auth ptpam ptpam7 "$(code_of ptpam7)" "$KEY_A"
check "big record: PAM_SUCCESS" test "$result" = PAM_SUCCESS
check "big record: written back with every key and recovery hash" \
	test "$(grep -c '^key SHA256:' "$S/ptpam7")/$(grep -c "^recovery .*$long\$" "$S/ptpam7")" = 16/10
check "big record: the accepted step is recorded" test "$(field_of "$S/ptpam7" last_step)" != 0
check "big record: still root 0600" test "$(stat -c %U:%G:%a "$S/ptpam7")" = root:root:600

# --- unenrolled users
auth ptpam ptpam5 123456 "$KEY_A"
check "unenrolled without nullok: refused, no prompt" test "$result/$prompted" = PAM_AUTH_ERR/0
check "unenrolled: reason=not_enrolled" logged login_fail reason=not_enrolled
auth ptpam-nullok ptpam5 123456 "$KEY_A"
check "unenrolled with nullok: PAM_IGNORE (the next module decides)" test "$result/$prompted" = PAM_SUCCESS/0
check "nullok skip is audited" logged login_skip reason=not_enrolled
auth ptpam-nullok ptpam1 000000 "$KEY_A"
check "nullok does not help an enrolled user with a wrong code" test "$result" = PAM_AUTH_ERR
check "nothing was created for the unenrolled user" test ! -e "$S/ptpam5"

# --- the client hangs up at the prompt
before=$(sha256sum <"$S/ptpam1")
auth ptpam ptpam1 --no-answer "$KEY_A"
check "no answer to the prompt: PAM_CONV_ERR" test "$result/$prompted" = PAM_CONV_ERR/1
check "no answer: logged as reason=conversation" logged login_fail reason=conversation
check "no answer: record untouched" test "$(sha256sum <"$S/ptpam1")" = "$before"

# --- unknown option
auth ptpam-badopt ptpam1 "$(code_of ptpam1)" "$KEY_A"
check "unknown option: PAM_SERVICE_ERR, no prompt" test "$result/$prompted" = PAM_SERVICE_ERR/0
check "unknown option: logged" logged login_fail reason=config

# --- recovery codes: each once
totp enroll --no-verify ptpam6 >"$T/enroll6.out"
rc1=$(sed -n 's/^  \([a-z2-7]\{4\}-[a-z2-7-]*\)$/\1/p' "$T/enroll6.out" | head -1)
check "enroll printed 10 recovery codes" test "$(grep -c '^  [a-z2-7]\{4\}-' "$T/enroll6.out")" = 10
check "recovery codes are stored hashed" bash -c "! grep -q '$rc1' '$S/ptpam6' && test \$(grep -c '^recovery \\\$y\\\$' '$S/ptpam6') = 10"
auth ptpam ptpam6 "$rc1" "$KEY_A"
check "recovery code: PAM_SUCCESS" test "$result" = PAM_SUCCESS
check "recovery code: login_ok method=recovery" logged login_ok method=recovery
check "recovery code: one fewer left" test "$(grep -c '^recovery ' "$S/ptpam6")" = 9
check "recovery code not logged" bash -c "! grep -q '$rc1' '$log'"
auth ptpam ptpam6 "$rc1" "$KEY_A"
check "recovery code a second time: refused" test "$result" = PAM_AUTH_ERR

# --- login proofs (common/login_proof.h): one per admitted login, for postern-shell
proofs() { find "$T/logins" -type f 2>/dev/null | sort; }
totp enroll --no-verify ptpam8 >/dev/null
code=$(code_of ptpam8)
before=$(proofs)
auth ptpam ptpam8 "$(printf %06d $(( (10#$code + 3) % 1000000 )))" "$KEY_A"
check "proof: a refused login leaves none" test "$result/$(proofs)" = "PAM_AUTH_ERR/$before"
auth ptpam ptpam8 "$code" "$KEY_A"
proof=$(comm -13 <(echo "$before") <(proofs))
check "proof: an admitted login leaves one record" test "$result/$(echo "$proof" | grep -c .)" = PAM_SUCCESS/1
check "proof: the directory is root's, 0711; the record root's, 0644" \
	test "$(stat -c %u:%a "$T/logins")/$(stat -c %u:%g:%a "$proof")" = "0:711/0:0:644"
has_lines() { local f=$1 l; shift; for l in "$@"; do grep -qxF -- "$l" "$f" || return 1; done; }
check "proof: it names the uid, user, connection and method" \
	has_lines "$proof" "uid=$(id -u ptpam8)" user=ptpam8 "connection=192.0.2.7 50122 192.0.2.1 22" method=totp
check "proof: named after the sshd-side process that ran PAM (the harness's parent)" \
	grep -qx "monitor=$(basename "$proof")" "$proof"
check "proof: no code in it" bash -c "! grep -q -- '$code' '$proof'"
# A record whose process is gone (a pid above pid_max never runs) is
# removed by the next admitted login, which leaves its own.
gone=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
echo "postern-login-proof 1" >"$T/logins/$gone"
next=$(oathtool --totp -b "$(secret_of "$S/ptpam8")" -N "@$(( $(date +%s) + 30 ))")
auth ptpam ptpam8 "$next" "$KEY_A"
check "proof: the next login sweeps the records of processes that are gone" \
	test "$result/$(proofs | grep -c "/$gone\$")" = PAM_SUCCESS/0
totp enroll --no-verify ptpam9 >/dev/null
install -d -m 0777 "$T/open"
service ptpam-openlogins "store=$S logins=$T/open/logins"
code=$(code_of ptpam9)
auth ptpam-openlogins ptpam9 "$code" "$KEY_A"
check "proof: a directory others may write is refused; the login fails closed" \
	test "$result/$(find "$T/open" -mindepth 1 | wc -l)" = PAM_SYSTEM_ERR/0
check "proof: logged as proof_error with what is wrong" \
	grep -q "event=login_fail .*reason=proof_error .*detail=\".*open: mode 0777 is too open" "$log" ||
	sed 's/^/# /' "$log"
for bad in logins=relative proof_lifetime=5 proof_lifetime=86401; do
	service ptpam-proofopt "store=$S $bad"
	auth ptpam-proofopt ptpam9 "$code" "$KEY_A"
	check "proof: module option $bad is refused (PAM_SERVICE_ERR)" test "$result" = PAM_SERVICE_ERR
done

# --- debug: every step located, still no code and no secret
service ptpam-debug "store=$S debug"
code=$(code_of ptpam1)
auth ptpam-debug ptpam1 "$(printf %06d $(( (10#$code + 7) % 1000000 )))" "$KEY_A"
check "debug: lines say file:line (function)" grep -q 'pam_postern(ptpam-debug:auth): pam_postern.c:[0-9]* (identify): store=' "$log"
check "debug: neither the code nor the secret is logged" \
	bash -c "! grep -q -e '$code' -e '$(secret_of "$S/ptpam1" | cut -c1-12)' '$log'"

. "$here/store-cases.sh"
finish
