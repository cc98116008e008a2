/*
 * Login proofs: pam_postern's word to postern-shell that it admitted this
 * ssh connection with a second factor.
 *
 * Why. Which PAM service sshd runs is sshd's configuration, not ours
 * (OpenSSH >= 9.8 uses "sshd" unless PAMServiceName says otherwise), so a
 * deployment can end up running a stack without pam_postern: key and Unix
 * password, no code. The shell then needs evidence it can check itself.
 *
 * What. After a verified code, pam_postern (root, in the PAM child that
 * sshd's per-connection monitor forked) writes one record to a root-owned
 * directory, named after that monitor's pid. The record names the uid, the
 * connection (SSH_CONNECTION), the monitor's pid and start time, the boot,
 * and an expiry on CLOCK_BOOTTIME. postern-shell (the user, a grandchild of
 * the same monitor: monitor -> unprivileged session child -> shell) finds
 * its monitor from /proc, reads the record by that name and accepts it only
 * if every field matches what it sees itself.
 *
 * MUST: be written only by root into a directory that only root can write
 * (trusted path); be bound to the one process that ran the authentication,
 * by pid and start time, so that no other connection (even of the same
 * user, from the same address and port) can present it; expire; be checked
 * against the file's owner and mode before its content is read.
 * MUST NOT: contain a secret (the maintainer can read it), or be trusted
 * from any path or value the user could have chosen.
 */
#ifndef POSTERN_LOGIN_PROOF_H
#define POSTERN_LOGIN_PROOF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "errmsg.h"

#define LOGIN_PROOF_MAX 1024           /* bytes of one record */
#define LOGIN_PROOF_CONNECTION_MAX 128 /* sshd writes "%.50s %d %.50s %d" */
#define LOGIN_PROOF_USER_MAX 64
#define LOGIN_PROOF_BOOT_ID_LEN 36     /* a UUID, as /proc prints it */
#define LOGIN_PROOF_METHOD_MAX 16
#define LOGIN_PROOF_LIFETIME_DEFAULT 3600
#define LOGIN_PROOF_LIFETIME_MAX 86400

struct login_proof {
	uid_t uid;
	char user[LOGIN_PROOF_USER_MAX + 1];
	char connection[LOGIN_PROOF_CONNECTION_MAX];
	pid_t monitor;                     /* sshd's per-connection monitor */
	unsigned long long monitor_start;  /* its start, clock ticks after boot */
	char boot_id[LOGIN_PROOF_BOOT_ID_LEN + 1];
	long long expires;                 /* CLOCK_BOOTTIME seconds */
	char method[LOGIN_PROOF_METHOD_MAX]; /* how the second factor passed */
};

/* How a check ended; only LOGIN_PROOF_VALID lets a command run. */
enum login_proof_verdict {
	LOGIN_PROOF_VALID,
	LOGIN_PROOF_MISSING,   /* no record for this connection's sshd process */
	LOGIN_PROOF_MISMATCH,  /* a record, but for another uid, connection, process or boot */
	LOGIN_PROOF_EXPIRED,
	LOGIN_PROOF_UNSAFE,    /* the directory or the record is not root's alone */
	LOGIN_PROOF_ERROR,     /* could not look (no SSH_CONNECTION, /proc unreadable, ...) */
};

/* A word for the verdict, for audit records: "valid", "missing", ... */
const char *login_proof_verdict_name(enum login_proof_verdict v);

/*
 * From the text of /proc/PID/stat: the parent pid (field 4) and the start
 * time (field 22). The command name (field 2) may hold any byte, ')'
 * included, so fields are counted after the last ')'.
 */
int proc_stat_parse(const char *buf, size_t len, pid_t *ppid,
		    unsigned long long *start, struct pst_err *e);

/* proc_stat_parse() of /proc/PID/stat. */
int proc_stat_read(pid_t pid, pid_t *ppid, unsigned long long *start, struct pst_err *e);

/* The kernel's boot id (/proc/sys/kernel/random/boot_id) into out. */
int boot_id_read(char out[LOGIN_PROOF_BOOT_ID_LEN + 1], struct pst_err *e);

/* The record as text (at most LOGIN_PROOF_MAX bytes); returns its length or -errno. */
int login_proof_format(const struct login_proof *p, char *out, size_t outlen);

/* Parse a record strictly: every line, in order, nothing else. */
int login_proof_parse(const char *buf, size_t len, struct login_proof *p, struct pst_err *e);

/*
 * Fill p for a login that passed by method, run by the monitor process
 * monitor, valid for lifetime seconds from now.
 */
int login_proof_fill(struct login_proof *p, uid_t uid, const char *user,
		     const char *connection, pid_t monitor, unsigned lifetime,
		     const char *method, struct pst_err *e);

/*
 * Write p atomically as DIR/<monitor pid>, root's, mode 0644 (DIR is
 * created, root's and mode 0711, when missing; every directory above it
 * must be root's and not group or other writable), then remove the records
 * of monitors that no longer run. Only root can do this.
 */
int login_proof_write(const char *dir, const struct login_proof *p, struct pst_err *e);

/*
 * The check postern-shell makes: the record of the sshd process that is
 * this process's grandparent (or great-grandparent, when the parent runs
 * login_shell, the account's shell, as for a ForceCommand), in dir, for uid
 * and connection, unexpired. why says what was wrong, for the refusal.
 */
enum login_proof_verdict login_proof_check(const char *dir, uid_t uid, const char *connection,
					   const char *login_shell, struct login_proof *out,
					   struct pst_err *why);

/*
 * The enrolment handoff: what pam_postern, after an invite login or the
 * login that completed an invited enrolment, leaves for postern-shell to
 * show that session's user once (rshell/enrol.h: the new secret's URI, or
 * the new recovery codes). DIR/<monitor pid>.<its start>.enrol, the user's own, mode
 * 0400, in the proofs' root-owned directory: the user can read it and not
 * change it; it goes when its sshd process does, as a proof does. Unlike a
 * proof it holds a secret, the user's own.
 */
#define LOGIN_HANDOFF_SUFFIX ".enrol"
#define LOGIN_HANDOFF_MAX 2048

/* Write text (len bytes) as the handoff of monitor's login, owned by uid. Root only. */
int login_handoff_write(const char *dir, pid_t monitor, uid_t uid, const char *text,
			size_t len, struct pst_err *e);

/* Read the handoff of the login whose proof is p (login_proof_check's, VALID),
 * which must be uid's and no one else's: 0, -ENOENT, or -errno. */
int login_handoff_read(const char *dir, const struct login_proof *p, uid_t uid, char *buf,
		       size_t buflen, size_t *len, struct pst_err *e);

#endif
