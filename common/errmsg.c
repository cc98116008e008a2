/*
 * The one way a library layer fills a struct pst_err (errmsg.h). It never
 * prints or exits: that is for main().
 */
#include "errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pst_fail(struct pst_err *e, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (e != NULL) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return errnum > 0 ? -errnum : errnum;
}

_Bool pst_refuse(struct pst_err *e, const char *fmt, ...)
{
	va_list ap;

	if (e != NULL) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return 0;
}

void pst_err_prefix(struct pst_err *e, const char *fmt, ...)
{
	char joined[2 * PST_ERR_MAX + 2];
	size_t n;
	va_list ap;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(joined, PST_ERR_MAX, fmt, ap);
	va_end(ap);
	n = strlen(joined);
	joined[n++] = ':';
	joined[n++] = ' ';
	memcpy(joined + n, e->msg, PST_ERR_MAX);
	joined[n + PST_ERR_MAX - 1] = '\0';
	/* A long prefix pushes the end of the old message out; keep the start. */
	memcpy(e->msg, joined, PST_ERR_MAX - 1);
	e->msg[PST_ERR_MAX - 1] = '\0';
}
