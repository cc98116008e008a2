#include "decision.h"

#include <stdarg.h>
#include <stdio.h>

bool decision_refuse(struct decision *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
	va_end(ap);
	return false;
}

void decision_allow(struct decision *d)
{
	d->rule = NULL;
	d->reason[0] = '\0';
}
