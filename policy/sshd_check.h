/*
 * postern-policy check-sshd: does the maintainers' sshd, as sshd itself
 * resolves its configuration for one user (sshd -T), ask for the key AND
 * the code (pam_postern.so), and run postern-shell and nothing else?
 */
#ifndef POSTERN_SSHD_CHECK_H
#define POSTERN_SSHD_CHECK_H

#include <stdio.h>

#define SSHD_CHECK_OK 0
#define SSHD_CHECK_PROBLEMS 1
#define SSHD_CHECK_CANNOT_RUN 2

struct sshd_check_opts {
	const char *sshd;       /* the sshd binary, absolute; its name is the PAM service before 9.8 */
	const char *config;     /* sshd -f FILE, or NULL for sshd's default */
	const char *pam_dir;    /* where PAM service files live */
	const char *user;       /* sshd -T -C user=...: the Match context */
	const char *host;
	const char *addr;
	const char *shell;      /* postern-shell's installed path */
};

/*
 * Runs `sshd -T -C user=U,host=H,addr=A [-f FILE]`, prints every problem and
 * warning on out, each with the line that fixes it, and says on stderr why
 * sshd could not be run. Returns SSHD_CHECK_OK, _PROBLEMS or _CANNOT_RUN.
 */
int sshd_check(const struct sshd_check_opts *o, FILE *out);

#endif
