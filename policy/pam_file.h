/*
 * A reader of Linux-PAM service files (/etc/pam.d/NAME), for
 * `postern-policy check-sshd`: does the auth stack of a service run
 * pam_postern.so as `required` or `requisite`, with nothing before it
 * that could end the stack early?
 *
 * It only reads. It follows `@include NAME` and the `include` and
 * `substack` controls to files in the same directory, never a name with
 * '/' or "..", and at most PAM_INCLUDE_DEPTH_MAX levels deep.
 */
#ifndef POSTERN_PAM_FILE_H
#define POSTERN_PAM_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "errmsg.h"

#define PAM_INCLUDE_DEPTH_MAX 8
#define PAM_FILE_SIZE_MAX (64 * 1024)
#define PAM_WORD_MAX 256

enum pam_control {
	PAM_CTL_REQUIRED,
	PAM_CTL_REQUISITE,
	PAM_CTL_SUFFICIENT,
	PAM_CTL_OPTIONAL,
	PAM_CTL_INCLUDE,
	PAM_CTL_SUBSTACK,
	PAM_CTL_BRACKET,     /* [value=action ...] */
	PAM_CTL_DIRECTIVE,   /* "@include NAME": no type, no control */
};

/* One rule of a service file, after comments and continuations. */
struct pam_line {
	unsigned lineno;              /* where it starts */
	bool quiet;                   /* "-auth": skipped when the module is missing */
	char type[16];                /* auth, account, ...; empty for @include */
	enum pam_control control;
	char control_text[PAM_WORD_MAX];   /* as written, for messages */
	char module[PAM_WORD_MAX];         /* module path, or the included name */
};

/*
 * Calls fn for every rule of text (len bytes, NUL bytes refused). Stops at
 * the first malformed line or when fn returns < 0. Returns 0, fn's value,
 * or -EINVAL with e saying "line N: what is wrong".
 */
int pam_text_parse(const char *text, size_t len,
		   int (*fn)(const struct pam_line *l, void *ctx), void *ctx,
		   struct pst_err *e);

/* A name an include may take: not empty, no '/', not "." or "..". */
bool pam_name_ok(const char *name);

/* What pam_auth_check found; each problem is also passed to the callback. */
struct pam_auth_report {
	void (*problem)(void *ctx, const char *what, const char *fix);
	void *ctx;
	unsigned problems;
	bool found;                   /* pam_postern.so required/requisite */
};

/*
 * Walks the auth stack of service in dir (and what it includes) and reports
 * every problem: a missing file, a malformed line, pam_postern.so absent or
 * with a control other than required/requisite (or "-auth"), a sufficient
 * module or a "done" action before it. Returns the number of problems.
 */
unsigned pam_auth_check(const char *dir, const char *service, struct pam_auth_report *r);

#endif
