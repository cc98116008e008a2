/*
 * One error style for every library layer of postern: a function returns
 * -errno (or false) and, when the caller passed a struct pst_err, fills it
 * with a sentence that says what went wrong and, where it can, what to do.
 * main()s print "prog: <msg>" and exit non-zero.
 */
#ifndef POSTERN_ERRMSG_H
#define POSTERN_ERRMSG_H

#define PST_ERR_MAX 512

struct pst_err {
	char msg[PST_ERR_MAX];
};

/* Fill e (may be NULL) and return -errnum; errnum is a positive errno. */
int pst_fail(struct pst_err *e, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fill e (may be NULL) and return false: for checks that answer yes or no. */
_Bool pst_refuse(struct pst_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix an existing message: "<prefix>: <old message>". */
void pst_err_prefix(struct pst_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
