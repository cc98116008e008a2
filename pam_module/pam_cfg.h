/* pam_postern's module options, parsed once per call into explicit defaults. */
#ifndef POSTERN_PAM_CFG_H
#define POSTERN_PAM_CFG_H

#include <stdbool.h>

struct pam_cfg {
	const char *store;          /* absolute path; points into argv or a constant */
	const char *logins;         /* where login proofs go (common/login_proof.h) */
	unsigned proof_lifetime;    /* seconds a login proof is valid, default 3600 */
	unsigned window;            /* time steps accepted on each side, default 1 */
	unsigned max_failures;      /* default 5 */
	unsigned lockout;           /* seconds, default 900 */
	bool nullok;                /* unenrolled users get PAM_IGNORE */
	bool require_sk;            /* require=security-key: a code is not enough */
	bool no_pubkey_check;       /* for services that are not sshd */
	bool debug;
};

/*
 * Fill cfg from argv. Returns -1 when every option was understood, else the
 * index of the first unknown or invalid option (the caller refuses to run).
 */
int pam_cfg_init(struct pam_cfg *cfg, int argc, const char **argv);

#endif
