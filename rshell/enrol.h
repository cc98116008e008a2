/*
 * postern-shell's `enroll`: what pam_postern left for this session about an
 * enrolment by invite (common/enrol_handoff.h), shown to the user once per
 * login. After the invite login, the new secret as a QR code and URI (and
 * the security key the login used, which the user may make their factor);
 * after the login that completed the enrolment, the new recovery codes.
 */
#ifndef POSTERN_RSHELL_ENROL_H
#define POSTERN_RSHELL_ENROL_H

#include <stdio.h>
#include <sys/types.h>

#include "login_proof.h"

/* Is this session the one an invite admitted (which may only enrol)? */
bool enrol_session_is_invite(const struct login_proof *proof);

/* Show the handoff of proof's login to out; the exit status. */
int enrol_run(FILE *out, const char *logins, const struct login_proof *proof, uid_t uid,
	      const char *user);

/* The same on out when there is something to show, else nothing: for the other commands. */
void enrol_notice(FILE *out, const char *logins, const struct login_proof *proof, uid_t uid,
		  const char *user);

#endif
