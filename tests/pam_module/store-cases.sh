# Sourced by test-pam.sh: a store that is not exactly as it must be is
# refused — PAM_AUTHINFO_UNAVAIL, logged as store_error, no prompt — and
# nothing in it is changed.

# bad_store NAME SETUP: copy ptpam1's store to $T/NAME/totp, break it with
# SETUP (run in that store dir), log in, check the refusal and that the
# store's files are byte for byte and inode for inode what they were.
# Every file's name, inode, mode, owner, size and time, and the content of
# the regular ones (never opening a FIFO).
snapshot() {
	(cd "$1" && find . -printf '%p %i %m %U %G %s %T@\n' | sort &&
		find . -type f -exec sha256sum {} + | sort)
}

bad_store() {
	local name=$1 setup=$2 dir before after
	dir=$T/$name/totp
	mkdir -m 0755 "$T/$name"
	mkdir -m 0700 "$dir"
	cp -p "$S/ptpam1" "$dir/ptpam1"
	(cd "$dir" && eval "$setup")
	before=$(snapshot "$T/$name")
	service "ptpam-$name" "store=$dir"
	auth "ptpam-$name" ptpam1 "$(oathtool --totp -b "$(secret_of "$S/ptpam1")")" "$KEY_A"
	after=$(snapshot "$T/$name")
	check "$name: refused with PAM_AUTHINFO_UNAVAIL, no prompt" test "$result/$prompted" = PAM_AUTHINFO_UNAVAIL/0
	check "$name: logged as store_error" logged login_fail reason=store_error
	check "$name: nothing modified" test "$before" = "$after"
}

bad_store record-mode 'chmod 0644 ptpam1'
bad_store record-owner 'chown ptpam1 ptpam1'
bad_store record-group 'chgrp daemon ptpam1'
bad_store record-symlink 'mv ptpam1 real && ln -s real ptpam1'
bad_store record-fifo 'rm ptpam1 && mkfifo -m 0600 ptpam1'
bad_store record-too-long 'head -c 9000 /dev/zero | tr "\0" a >>ptpam1'
bad_store record-garbage 'echo "shell /bin/sh" >>ptpam1'
bad_store dir-mode 'chmod 0755 .'
bad_store dir-owner 'chown ptpam1 .'
bad_store parent-writable 'chmod 0777 ..'
# nullok is for the unenrolled only: an unusable record or store still
# denies, it does not hand the decision to the next module (pam_permit).
for name in record-mode record-symlink dir-mode; do
	echo "auth required $MODULE logins=$T/logins store=$T/$name/totp nullok" >"$T/svc/ptpam-nullok-$name"
	echo "auth required pam_permit.so" >>"$T/svc/ptpam-nullok-$name"
	auth "ptpam-nullok-$name" ptpam1 "$(oathtool --totp -b "$(secret_of "$S/ptpam1")")" "$KEY_A"
	check "$name with nullok: still PAM_AUTHINFO_UNAVAIL, no prompt" test "$result/$prompted" = PAM_AUTHINFO_UNAVAIL/0
done
# A symlinked store directory is refused too (sf_open_dir_path never follows).
mkdir -m 0755 "$T/linked"
ln -s "$S" "$T/linked/totp"
service ptpam-linked "store=$T/linked/totp"
auth ptpam-linked ptpam1 "$(oathtool --totp -b "$(secret_of "$S/ptpam1")")" "$KEY_A"
check "symlinked store dir: refused" test "$result/$prompted" = PAM_AUTHINFO_UNAVAIL/0
